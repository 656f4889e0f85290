import Foundation
import KingfisherLocking

/// Reports how much of a download has arrived: bytes received and bytes expected (`-1` when the server did not
/// say).
///
/// It runs on the options' `callbackQueue`: `.untouch` by default, which is the downloader's thread that has just
/// read the bytes, so it never needs a main run loop (servers and `async` command-line tools never drain
/// `DispatchQueue.main`). Keep it short there, or name a queue with `.callbackQueue(.dispatch(queue))`.
///
/// - Note: Kingfisher calls progress blocks on the main queue. Pass `.callbackQueue(.mainAsync)` for that, where
///   something runs the main queue.
public typealias DownloadProgressBlock = @Sendable (_ receivedSize: Int64, _ totalSize: Int64) -> Void

/// One caller of a shared download, as the download sees it (the guest it brings to the shared processing of
/// its body): its options, progress block and previews, and its token on the ``SessionDataTask``. It holds no
/// result: the caller awaits that from the shared work it joined.
final class DownloadWaiter: Sendable {
    /// The URL the caller asked for.
    let url: URL
    let options: KingfisherParsedOptionsInfo
    /// What the pipeline handed the download besides the options (previews, limits, validators).
    let context: DownloadContext
    let progressBlock: DownloadProgressBlock?
    /// Where the caller's image is decoded and processed: its pipeline's workers, or the downloader's own.
    let workers: ImageWorkers
    /// The caller's token on the HTTP task.
    let token: SessionDataTask.CancelToken
    /// How the caller leaves the shared work (``SessionDataTask/cancel(token:)``), once it has joined; whether it
    /// was asked to leave before.
    private let departure = Locked<(leave: (@Sendable () -> Void)?, asked: Bool)>((nil, false))

    init(
        url: URL, options: KingfisherParsedOptionsInfo, context: DownloadContext = DownloadContext(),
        progressBlock: DownloadProgressBlock?, workers: ImageWorkers, token: SessionDataTask.CancelToken
    ) {
        self.url = url
        self.options = options
        self.context = context
        self.progressBlock = progressBlock
        self.workers = workers
        self.token = token
    }

    /// The caller joined: `leave` makes it leave (at once, when that was asked already).
    func joined(leave: @escaping @Sendable () -> Void) {
        let asked = departure.withLock { departure in
            departure.leave = leave
            return departure.asked
        }
        if asked { leave() }
    }

    /// Makes the caller leave its download: it gets ``KingfisherError/RequestErrorReason/taskCancelled(task:token:)``.
    func leave() {
        let leave = departure.withLock { departure in
            departure.asked = true
            return departure.leave
        }
        leave?()
    }

    func reportProgress(received: Int64, expected: Int64) {
        guard let progressBlock else { return }
        options.callbackQueue.execute { progressBlock(received, expected) }
    }
}
