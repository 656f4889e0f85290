import Foundation
import KingfisherLocking

/// One retrieval by ``KingfisherManager``: what it reads and writes, its task, and its completion, which runs
/// exactly once whatever races between finishing and cancelling.
///
/// Cancellation works through the caller's ``DownloadTask``. While the manager works (cache lookups, a provider,
/// processing an original) the task is pending with the manager's reporter; while downloading, the downloader
/// owns it and hands it back when it delivers. Before any cache write the retrieval commits: from then on a
/// cancel does nothing, and a cancel that came first stops the write.
///
/// When the source fails and `.alternativeSources` has more, each alternative gets a new task, handed to
/// `downloadTaskUpdated` (as Kingfisher does). Every task of the retrieval keeps cancelling all of it: the one
/// `retrieveImage` returned (and the `async` form's cancellation) stops whichever alternative runs, including its
/// download.
final class ImageRetrieval: Sendable {
    typealias Completion = @Sendable (Result<RetrieveImageResult, KingfisherError>) -> Void

    let originalSource: Source
    /// The caller's options; `callbackQueue` is where the completion and progress run.
    let options: KingfisherParsedOptionsInfo
    let targetCache: ImageCache
    let originalCache: ImageCache
    let downloader: ImageDownloader
    let progressBlock: DownloadProgressBlock?
    let downloadTaskUpdated: DownloadTaskUpdatedBlock?
    /// Every task of the retrieval: the caller's first, then one per alternative source; the last is current.
    private let tasks: Locked<[DownloadTask]>
    private let completion: Locked<Completion?>

    init(
        source: Source, options: KingfisherParsedOptionsInfo, manager: KingfisherManager, task: DownloadTask,
        progressBlock: DownloadProgressBlock?, downloadTaskUpdated: DownloadTaskUpdatedBlock? = nil,
        completion: Completion?
    ) {
        self.originalSource = source
        var options = options
        if options.previewSink == nil, let progressive = options.progressiveJPEG {
            // No image target: previews go to the delegate only.
            options.previewSink = PreviewSink.callingDelegate(of: progressive, on: options.callbackQueue)
        }
        self.options = options
        self.targetCache = options.targetCache ?? manager.cache
        self.originalCache = options.originalCache ?? options.targetCache ?? manager.cache
        self.downloader = options.downloader ?? manager.downloader
        self.tasks = Locked([task])
        self.progressBlock = progressBlock
        self.downloadTaskUpdated = downloadTaskUpdated
        self.completion = Locked(completion ?? { _ in })
    }

    /// The task of the source being retrieved now: the first one, or the latest alternative's.
    var task: DownloadTask { tasks.withLock { $0[$0.count - 1] } }

    /// Gives the retrieval a new task for the next alternative source and tells the caller; the task it replaces
    /// now cancels the whole retrieval.
    /// - Returns: `false` when the replaced task was cancelled already: the retrieval must end as cancelled.
    func replaceTask() -> Bool {
        let next = DownloadTask()
        // The new task is current before the old one forwards to it, so a cancel in between cannot miss it.
        let previous = tasks.withLock { tasks in
            defer { tasks.append(next) }
            return tasks[tasks.count - 1]
        }
        guard previous.setPending(onCancel: { [self] in cancelFromEarlierTask() }) else { return false }
        downloadTaskUpdated?(next)
        return true
    }

    /// An earlier task was cancelled: stop the current source's work (its download too), then tell the caller.
    private func cancelFromEarlierTask() {
        task.cancel()
        deliver(.failure(.requestError(reason: .asyncTaskContextCancelled)))
    }

    /// The options for work inside the retrieval: callbacks run where the work finished.
    var internalOptions: KingfisherParsedOptionsInfo {
        var copy = options
        copy.callbackQueue = .untouch
        return copy
    }

    /// The internal options with the default processor, for the original image under the plain key.
    var originalOptions: KingfisherParsedOptionsInfo {
        var original = internalOptions
        original.processor = DefaultImageProcessor.default
        return original
    }

    /// Whether a processor other than the default is set, so an original image can differ from the result.
    var hasCustomProcessor: Bool { !options.processor.identifier.isEmpty }

    /// Runs the completion on the callback queue, the first time only.
    func deliver(_ result: Result<RetrieveImageResult, KingfisherError>) {
        let handler = completion.withLock { stored in
            defer { stored = nil }
            return stored
        }
        guard let handler else { return }
        // Cancelling any task of the retrieval does nothing from now on.
        for task in tasks.withLock({ $0 }) { task.markFinished() }
        let queue = options.callbackQueue
        guard let sink = options.previewSink else {
            queue.execute { handler(result) }
            return
        }
        // No preview after the result: after any preview being handed over now.
        sink.close { queue.execute { handler(result) } }
    }

    func result(
        _ image: KFCrossPlatformImage, from source: Source, cacheType: CacheType, metrics: NetworkMetrics? = nil,
        diskStoreError: KingfisherError? = nil, data: @escaping @Sendable () -> Data?
    ) -> RetrieveImageResult {
        RetrieveImageResult(
            image: options.imageModifier?.modify(image) ?? image, cacheType: cacheType, source: source,
            originalSource: originalSource, data: data,
            metrics: metrics, diskStoreError: diskStoreError)
    }

    /// Holds the current task while the manager works (a cache lookup, a provider) so a cancel reaches the caller.
    /// - Returns: `false` when the task was cancelled already; the caller has then been told.
    func holdTask() -> Bool {
        let task = self.task
        let reportCancelled: @Sendable () -> Void = { [self] in
            deliver(.failure(.requestError(reason: .asyncTaskContextCancelled)))
        }
        guard task.setPending(onCancel: reportCancelled) else {
            if task.isCancelled { reportCancelled() }
            return false
        }
        return true
    }

    /// Decides that the result stands. After this a cancel does nothing.
    /// - Returns: `false` when the task was cancelled first: write nothing, deliver nothing more.
    func commit() -> Bool {
        let task = self.task
        task.markFinished()
        // The completion is gone when a cancel reached the caller, also through an earlier source's task.
        return !task.isCancelled && !isDelivered
    }

    /// The error for a cancelled retrieval: the HTTP task and token when the task was attached to one.
    var cancellationError: KingfisherError {
        let task = self.task
        if let session = task.sessionTask, let token = task.cancelToken {
            return .requestError(reason: .taskCancelled(task: session, token: token))
        }
        return .requestError(reason: .asyncTaskContextCancelled)
    }

    /// Whether the completion has run (or been scheduled) already.
    var isDelivered: Bool { completion.withLock { $0 == nil } }
}
