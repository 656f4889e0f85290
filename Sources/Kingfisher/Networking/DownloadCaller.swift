public import Foundation
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

/// One caller of ``ImageDownloader/downloadImage(with:options:progressBlock:completionHandler:)``: its options,
/// blocks and handle. Its completion runs exactly once, whatever races between finishing and cancelling.
final class DownloadCaller: Sendable {
    let url: URL
    let options: KingfisherParsedOptionsInfo
    let progressBlock: DownloadProgressBlock?
    let task: DownloadTask
    /// Whether delivering hands ``task`` back to its owner (see ``DownloadTask/handBack()``) instead of finishing it.
    let handsTaskBack: Bool
    private let currentAttempt = Locked(Attempt(retriedCount: 0, userInfo: nil))
    private let completion: Locked<(@Sendable (Result<ImageLoadingResult, KingfisherError>) -> Void)?>

    init(
        url: URL, options: KingfisherParsedOptionsInfo, task: DownloadTask, handsTaskBack: Bool = false,
        progressBlock: DownloadProgressBlock?,
        completion: (@Sendable (Result<ImageLoadingResult, KingfisherError>) -> Void)?
    ) {
        self.url = url
        var options = options
        if !handsTaskBack, options.previewSink == nil, let progressive = options.progressiveJPEG {
            // A caller of the downloader itself: previews go to the delegate only.
            options.previewSink = PreviewSink.callingDelegate(of: progressive, on: options.callbackQueue)
        }
        self.options = options
        self.task = task
        self.handsTaskBack = handsTaskBack
        self.progressBlock = progressBlock
        self.completion = Locked(completion ?? { _ in })
    }

    /// The try in progress.
    var attempt: Attempt { currentAttempt.withLock { $0 } }

    func setAttempt(_ attempt: Attempt) {
        currentAttempt.withLock { $0 = attempt }
    }

    /// Whether the result was delivered already.
    var isDelivered: Bool { completion.withLock { $0 == nil } }

    /// Runs the completion handler on the options' callback queue, the first time only.
    func deliver(_ result: Result<ImageLoadingResult, KingfisherError>) {
        let handler = completion.withLock { stored in
            defer { stored = nil }
            return stored
        }
        guard let handler else { return }
        if handsTaskBack { task.handBack() } else { task.markFinished() }
        let queue = options.callbackQueue
        guard !handsTaskBack, let sink = options.previewSink else {
            queue.execute { handler(result) }
            return
        }
        // After any preview being handed over; the owner of a handed-back task closes its own sink.
        sink.close { queue.execute { handler(result) } }
    }

    func reportProgress(received: Int64, expected: Int64) {
        guard let progressBlock, !isDelivered else { return }
        options.callbackQueue.execute { progressBlock(received, expected) }
    }
}
