import Foundation
import KingfisherLocking

/// What a caller inside the library hands to ``ImageDownloader/downloadImage(with:options:completionHandler:)``
/// besides its parameters: the task to use (the manager's retrieval task, handed back when the download
/// delivers) and the progress block. Kingfisher carries the progress block in its options; here it rides in a
/// task-local value that the first matching call claims, so a subclass override that calls `super` keeps both.
final class DownloadHandOff: Sendable {
    @TaskLocal static var current: DownloadHandOff?

    let url: URL
    let task: DownloadTask
    let handsTaskBack: Bool
    let progressBlock: DownloadProgressBlock?
    private let claimed = Locked(false)

    init(url: URL, task: DownloadTask, handsTaskBack: Bool, progressBlock: DownloadProgressBlock?) {
        self.url = url
        self.task = task
        self.handsTaskBack = handsTaskBack
        self.progressBlock = progressBlock
    }

    /// `true` the first time it is asked for `url`.
    func claim(for url: URL) -> Bool {
        guard url == self.url else { return false }
        return claimed.withLock { claimed in
            defer { claimed = true }
            return !claimed
        }
    }
}

/// A completion handler that runs the first time only.
final class CompletionOnce<Value: Sendable>: Sendable {
    private let handler: Locked<(@Sendable (Value) -> Void)?>

    init(_ handler: (@Sendable (Value) -> Void)?) {
        self.handler = Locked(handler ?? { _ in })
    }

    func callAsFunction(_ value: Value) {
        let pending = handler.withLock { stored in
            defer { stored = nil }
            return stored
        }
        pending?(value)
    }
}

extension ImageDownloader {
    /// Starts a download through the open ``downloadImage(with:options:completionHandler:)`` with `task` and
    /// `progressBlock` handed over. When an override answers with a task of its own instead of calling `super`,
    /// cancelling `task` cancels that one and reports the cancellation.
    func start(
        _ url: URL, options: KingfisherParsedOptionsInfo, task: DownloadTask, handsTaskBack: Bool = false,
        progressBlock: DownloadProgressBlock?,
        completion: (@Sendable (Result<ImageLoadingResult, KingfisherError>) -> Void)?
    ) {
        let once = CompletionOnce(completion)
        let handOff = DownloadHandOff(
            url: url, task: task, handsTaskBack: handsTaskBack, progressBlock: progressBlock)
        let returned = DownloadHandOff.$current.withValue(handOff) {
            downloadImage(with: url, options: options, completionHandler: { once($0) })
        }
        guard returned !== task else { return }
        let queue = options.callbackQueue
        let reportCancelled: @Sendable () -> Void = {
            returned.cancel()
            queue.execute { once(.failure(.requestError(reason: .asyncTaskContextCancelled))) }
        }
        if !task.setPending(onCancel: reportCancelled) { reportCancelled() }
    }
}
