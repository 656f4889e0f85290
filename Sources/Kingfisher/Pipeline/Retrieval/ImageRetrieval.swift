import Foundation
import KingfisherLocking
import Logging

/// One retrieval by ``KingfisherManager``, as one `async` function, ``run()``: the source (then its alternatives
/// while they fail) through the caches, the fetch, processing and storing (ImageRetrieval+Run.swift, and a file
/// per stage beside it).
///
/// It runs inside one Swift task; cancelling that task cancels it (the download or provider it waits on included):
/// that is the one way cancellation travels inside. The caller's ``DownloadTask``s stand for that task at the
/// callback edge (``start(completion:)``): cancelling any of them cancels it and tells the caller at once, with the
/// error of the step it is in (which the steps record on the current handle). Before any cache write the retrieval
/// commits: from then on a cancel does nothing, and a cancel that came first stops the write.
///
/// When the source fails and `.alternativeSources` has more, each alternative gets a new handle, handed to
/// `downloadTaskUpdated` (as Kingfisher does). Every handle of the retrieval keeps cancelling all of it.
final class ImageRetrieval: Sendable {
    /// What a retrieval makes of its source.
    enum Mode: Sendable {
        /// The image: looked up in the caches, else fetched, decoded, processed and stored (the manager's).
        case image
        /// The source's bytes on disk, for a prefetch that keeps original data (see
        /// ``ImagePrefetcher/storesOriginalData``): fetched without a cache lookup, their header checked
        /// (``ImageHeaderCheck``, every frame counted when `allFrames`) instead of decoding them, and stored as the
        /// serializer keeps them, nothing in memory. The result's image is empty.
        case originalBytes(allFrames: Bool)
    }

    let originalSource: Source
    let mode: Mode
    /// The caller's options; `callbackQueue` is where the completion and progress run.
    let options: KingfisherParsedOptionsInfo
    let targetCache: ImageCache
    let originalCache: ImageCache
    let downloader: ImageDownloader
    let progressBlock: DownloadProgressBlock?
    let downloadTaskUpdated: DownloadTaskUpdatedBlock?
    /// The manager's pipeline: its workers and the work its retrievals share (provider loads, disk stores).
    let pipeline: ImagePipeline
    /// Where the retrieval's decodes run: the manager's workers.
    var workers: ImageWorkers { pipeline.workers }
    /// The decode limits of the retrieval: the manager's when it started.
    let engine: ImageEngine.Configuration
    /// Where the retrieval's progressive previews go, with `.progressiveJPEG`: an image target's, an
    /// ``ImageRetrievalTask``'s stream, or else ``ImageProgressive/onImageUpdated``.
    let previewSink: PreviewSink?
    /// The call's logger, else the manager's; `nil` logs nothing.
    let logger: Logger?
    let metrics: ManagerMetrics
    /// Every handle of the retrieval: the caller's first, then one per alternative source; the last is current.
    private let handles: Locked<[DownloadTask]>
    /// What cancelling a handle does (stop the work, tell the caller); given to each new handle.
    private let cancelHandler: Locked<(@Sendable (KingfisherError) -> Void)?> = Locked(nil)

    init(
        source: Source, options: KingfisherParsedOptionsInfo, manager: KingfisherManager, handle: DownloadTask,
        progressBlock: DownloadProgressBlock?, downloadTaskUpdated: DownloadTaskUpdatedBlock? = nil,
        previewSink: PreviewSink? = nil, mode: Mode = .image
    ) {
        self.originalSource = source
        self.mode = mode
        let settings = manager.pipeline.settings
        var options = options
        options.httpCachePolicy = options.httpCachePolicy ?? settings.httpCachePolicy
        self.engine = settings.engine
        // No image target or task stream: previews go to the delegate only.
        self.previewSink =
            previewSink
            ?? options.progressiveJPEG.flatMap {
                PreviewSink.callingDelegate(of: $0, on: options.callbackQueue)
            }
        self.options = options
        self.targetCache = options.targetCache ?? manager.cache
        self.originalCache = options.originalCache ?? options.targetCache ?? manager.cache
        self.downloader = options.downloader ?? manager.downloader
        self.logger = options.logger ?? settings.logger
        self.metrics = manager.metrics
        self.handles = Locked([handle])
        if case .provider(let provider) = source {
            // A cancel before the retrieval's task has started reports the provider's cancellation, as Kingfisher's
            // (whose provider is called before retrieveImage returns).
            handle.enter(.providing(provider))
        }
        self.progressBlock = progressBlock
        self.downloadTaskUpdated = downloadTaskUpdated
        self.pipeline = manager.pipeline
    }

    /// Runs the retrieval in the calling task: its result, once the preview sink is closed (no preview comes after
    /// it), logged.
    func value() async -> Result<RetrieveImageResult, KingfisherError> {
        let report = logging(nil)
        let result = await run()
        await previewSink?.close()
        report?(result)
        return result
    }

    /// The callback edge: runs the retrieval in a task of its own and delivers its result once on the callback
    /// queue (after closing the preview sink); cancelling any handle cancels the task and delivers the
    /// cancellation at once, except while a provider loads: then the cancellation is delivered when the task has
    /// seen it (the provider has returned, or ``providerCancellationGrace`` ran out), as Kingfisher 8.11 does.
    func start(completion: (@Sendable (Result<RetrieveImageResult, KingfisherError>) -> Void)?) {
        let deliver = CallbackEdge(on: options.callbackQueue, closing: previewSink, logging(completion))
        let task = deliver.start { await self.run() }
        let handles = self.handles
        let handler: @Sendable (KingfisherError) -> Void = { reason in
            task.cancel()
            if case .requestError(reason: .dataProviderCancelled) = reason {
                // The task ends with this very error (a cancelled retrieval ends with its step's) once the
                // provider's load has ended.
            } else {
                deliver(.failure(reason))
            }
            // Every handle of the retrieval says it was cancelled (the others' handlers find it delivered).
            for handle in handles.withLock({ $0 }) { handle.cancel() }
        }
        cancelHandler.withLock { $0 = handler }
        for handle in handles.withLock({ $0 }) { handle.onCancel(handler) }
    }

    /// The handle of the source being retrieved now: the first one, or the latest alternative's.
    var handle: DownloadTask { handles.withLock { $0[$0.count - 1] } }

    /// Whether the retrieval was cancelled: its task (a handle of the callback edge cancels that task).
    var isCancelled: Bool { Task.isCancelled }

    /// The error a cancelled retrieval ends with: the current step's.
    var cancellationError: KingfisherError { handle.cancellationError }

    /// Gives the retrieval a new handle for the next alternative source and tells the caller; the handle it
    /// replaces still cancels the whole retrieval (reporting `asyncTaskContextCancelled`).
    /// - Returns: `false` when the retrieval was cancelled already.
    func replaceHandle() -> Bool {
        guard !isCancelled else { return false }
        let next = DownloadTask()
        let previous = handles.withLock { handles in
            defer { handles.append(next) }
            return handles[handles.count - 1]
        }
        previous.enter(.preparing)
        if let handler = cancelHandler.withLock({ $0 }) { next.onCancel(handler) }
        downloadTaskUpdated?(next)
        return true
    }

    /// Decides that the result stands: every handle is finished, so a cancel does nothing from now on.
    /// - Returns: `false` when the retrieval was cancelled first: write nothing.
    func commit() -> Bool {
        guard !Task.isCancelled else { return false }
        var stands = true
        for handle in handles.withLock({ $0 }) where !handle.markFinished() {
            stands = false
        }
        return stands
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

    /// The options of the fetch step: the internal options, with (for ``Mode/originalBytes(allFrames:)``) the
    /// header check instead of the processor and no previews.
    var fetchOptions: KingfisherParsedOptionsInfo {
        guard case .originalBytes(let allFrames) = mode else { return internalOptions }
        var fetch = internalOptions
        fetch.processor = ImageHeaderCheck.Processor(allFrames: allFrames, reported: options.processor)
        fetch.progressiveJPEG = nil
        return fetch
    }

    /// What the retrieval hands its downloads besides the options: its workers and limits, its previews (none for
    /// an original-bytes retrieval), and `conditionalHeaders` for a revalidation.
    func downloadContext(conditionalHeaders: [String: String]? = nil) -> DownloadContext {
        var sink = previewSink
        if case .originalBytes = mode { sink = nil }
        return DownloadContext(
            workers: workers, engine: engine, previewSink: sink, conditionalHeaders: conditionalHeaders,
            partialDownloads: options.httpCachePolicy?.resumes == true ? targetCache.partialDownloads : nil)
    }

    /// Whether a processor other than the default is set, so an original image can differ from the result.
    var hasCustomProcessor: Bool { !options.processor.identifier.isEmpty }

    func result(
        _ image: KFCrossPlatformImage, from source: Source, cacheType: CacheType, metrics: NetworkMetrics? = nil,
        stored: StoreOutcome? = nil, validation: HTTPValidation? = nil,
        data: @escaping @Sendable () -> Data?
    ) -> RetrieveImageResult {
        var result = RetrieveImageResult(
            image: options.imageModifier?.modify(image) ?? image, cacheType: cacheType, source: source,
            originalSource: originalSource, data: data,
            metrics: metrics, diskStoreError: stored?.failure, validation: validation)
        result.encodedData = stored?.encoded
        return result
    }
}
