import KingfisherLocking

extension KingfisherManager {
    /// Retrieves the image of `resource`; the `async` twin of
    /// ``retrieveImage(with:options:progressBlock:downloadTaskUpdated:completionHandler:)-(any Resource,_,_,_,_)``.
    ///
    /// Cancelling the calling task cancels the retrieval: it throws an error whose
    /// ``KingfisherError/isTaskCancelled`` is `true` and writes nothing to the cache afterwards.
    /// - Throws: a ``KingfisherError``.
    public func retrieveImage(
        with resource: any Resource, options: KingfisherOptionsInfo? = nil,
        progressBlock: DownloadProgressBlock? = nil
    ) async throws -> RetrieveImageResult {
        try await retrieveImage(with: resource.convertToSource(), options: options, progressBlock: progressBlock)
    }

    /// Retrieves the image of `source`; the `async` twin of
    /// ``retrieveImage(with:options:progressBlock:downloadTaskUpdated:completionHandler:)-(Source,_,_,_,_)``.
    /// - Throws: a ``KingfisherError``.
    public func retrieveImage(
        with source: Source, options: KingfisherOptionsInfo? = nil, progressBlock: DownloadProgressBlock? = nil
    ) async throws -> RetrieveImageResult {
        try await retrieveImage(with: source, parsedOptions: parsedOptions(options), progressBlock: progressBlock)
    }

    /// The `async` retrieval with parsed options: the pipeline's retrieval, run in the calling task. A memory hit
    /// returns without suspending; a cancel answers at once (every step's wait leaves when its task is cancelled,
    /// and work shared with others goes on for them).
    /// - Parameter previewSink: where progressive previews go (an ``ImageRetrievalTask``'s stream); without one,
    ///   to ``ImageProgressive/onImageUpdated``.
    func retrieveImage(
        with source: Source, parsedOptions options: KingfisherParsedOptionsInfo,
        progressBlock: DownloadProgressBlock? = nil, previewSink: PreviewSink? = nil
    ) async throws(KingfisherError) -> RetrieveImageResult {
        if let hit = memoryHit(source, options: options) { return hit }
        var options = options
        options.callbackQueue = .untouch
        let retrieval = ImageRetrieval(
            source: source, options: options, manager: self, handle: DownloadTask(), progressBlock: progressBlock,
            previewSink: previewSink)
        return try await retrieval.value().get()
    }
}
