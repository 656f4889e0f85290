/// A retrieval whose progressive JPEG previews arrive as an `AsyncStream`, then its result. Ours, after Nuke's
/// `ImageTask.previews`; Kingfisher has only the ``ImageProgressive/onImageUpdated`` delegate.
///
/// ```swift
/// let task = KF.url(url).progressiveJPEG(ImageProgressive(isBlur: false, isFastestScan: true, scanInterval: 0.1))
///     .retrievalTask()
/// for await preview in task.previews { show(preview) }
/// show(try await task.result.image)
/// ```
///
/// The retrieval starts when the task is made. ``previews`` yields each preview (only with `.progressiveJPEG`; see
/// ``ImageProgressive`` for which images have them) and finishes before ``result`` is available, or when the
/// retrieval fails or is cancelled: no preview ever comes after the final image. It buffers the newest preview
/// only, so a slow reader skips to the latest. ``ImageProgressive/onImageUpdated`` is called too (its answer
/// ignored), on the thread that decoded the preview.
public final class ImageRetrievalTask: Sendable {
    /// The previews, in order of detail; finished before ``result`` is available.
    public let previews: AsyncStream<KFCrossPlatformImage>
    private let continuation: AsyncStream<KFCrossPlatformImage>.Continuation
    private let sink: PreviewSink?
    private let work: Task<RetrieveImageResult, any Error>

    init(
        manager: KingfisherManager, source: Source?, options: KingfisherParsedOptionsInfo,
        progressBlock: DownloadProgressBlock?,
        onSuccess: (@Sendable (RetrieveImageResult) -> Void)? = nil,
        onFailure: (@Sendable (KingfisherError) -> Void)? = nil
    ) {
        let (previews, continuation) = AsyncStream.makeStream(
            of: KFCrossPlatformImage.self, bufferingPolicy: .bufferingNewest(1))
        let sink = options.progressiveJPEG.map { progressive in
            PreviewSink(progressive: progressive) { preview in
                _ = progressive.onImageUpdated.call(preview)
                continuation.yield(preview)
            }
        }
        if sink == nil { continuation.finish() }
        self.previews = previews
        self.continuation = continuation
        self.sink = sink
        let queue = options.callbackQueue
        work = Task {
            // The stream ends before the result (or error) is observable through `result`.
            defer { continuation.finish() }
            do {
                guard let source else { throw KingfisherError.imageSettingError(reason: .emptySource) }
                let result = try await manager.retrieveImage(
                    with: source, parsedOptions: options, progressBlock: progressBlock, previewSink: sink)
                if let onSuccess { queue.execute { onSuccess(result) } }
                return result
            } catch let error as KingfisherError {
                if let onFailure { queue.execute { onFailure(error) } }
                throw error
            }
        }
    }

    /// The retrieved image, once the retrieval ends. Cancelling the task that waits here cancels the retrieval.
    /// - Throws: a ``KingfisherError``; one whose ``KingfisherError/isTaskCancelled`` is `true` when cancelled.
    public var result: RetrieveImageResult {
        get async throws {
            try await withTaskCancellationHandler {
                try await work.value
            } onCancel: {
                cancel()
            }
        }
    }

    /// Cancels the retrieval: ``previews`` finishes at once and ``result`` throws a cancellation error.
    public func cancel() {
        sink?.close {}
        continuation.finish()
        work.cancel()
    }
}

extension KingfisherManager {
    /// Starts retrieving `source` and returns at once with its ``ImageRetrievalTask``: the progressive JPEG
    /// previews (with `.progressiveJPEG` in the options) as an `AsyncStream`, then the result. Ours.
    /// - Parameters:
    ///   - source: what to retrieve.
    ///   - options: as ``retrieveImage(with:options:progressBlock:)-(Source,_,_)``. `nil` by default.
    ///   - progressBlock: download progress. `nil` by default.
    public func retrievalTask(
        with source: Source, options: KingfisherOptionsInfo? = nil, progressBlock: DownloadProgressBlock? = nil
    ) -> ImageRetrievalTask {
        ImageRetrievalTask(
            manager: self, source: source, options: parsedOptions(options), progressBlock: progressBlock)
    }

    /// Starts retrieving `resource`; see ``retrievalTask(with:options:progressBlock:)-(Source,_,_)``. Ours.
    public func retrievalTask(
        with resource: any Resource, options: KingfisherOptionsInfo? = nil,
        progressBlock: DownloadProgressBlock? = nil
    ) -> ImageRetrievalTask {
        retrievalTask(with: resource.convertToSource(), options: options, progressBlock: progressBlock)
    }
}
