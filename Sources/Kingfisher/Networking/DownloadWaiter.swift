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

/// One caller waiting on a shared HTTP task: its options and progress block, and the continuation of its
/// download that the task resumes, once, with the caller's image or error.
final class DownloadWaiter: Sendable {
    /// The URL the caller asked for.
    let url: URL
    let options: KingfisherParsedOptionsInfo
    /// What the pipeline handed the download besides the options (previews, limits, validators).
    let context: DownloadContext
    let progressBlock: DownloadProgressBlock?
    /// The caller's handle: previews stop when it is cancelled.
    let handle: DownloadTask
    /// Where the caller's image is decoded and processed: its pipeline's stage, or the downloader's own.
    let decoder: DecodeStage
    /// The caller's task priority when it joined: the shared download runs at the highest of its waiters'.
    let priority: TaskPriority
    private let continuation: DeliverOnce<Result<ImageLoadingResult, KingfisherError>>

    init(
        url: URL, options: KingfisherParsedOptionsInfo, context: DownloadContext = DownloadContext(),
        progressBlock: DownloadProgressBlock?, handle: DownloadTask, decoder: DecodeStage,
        resume: @escaping @Sendable (Result<ImageLoadingResult, KingfisherError>) -> Void
    ) {
        self.url = url
        self.options = options
        self.context = context
        self.progressBlock = progressBlock
        self.handle = handle
        self.decoder = decoder
        self.priority = Task.currentPriority
        self.continuation = DeliverOnce(resume)
    }

    /// Whether the result was delivered already.
    var isDelivered: Bool { continuation.isDone }

    /// Hands the caller its result; later calls do nothing.
    func resume(_ result: Result<ImageLoadingResult, KingfisherError>) {
        continuation(result)
    }

    func reportProgress(received: Int64, expected: Int64) {
        guard let progressBlock, !isDelivered else { return }
        options.callbackQueue.execute { progressBlock(received, expected) }
    }
}
