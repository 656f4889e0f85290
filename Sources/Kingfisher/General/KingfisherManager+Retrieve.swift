import Foundation
import Logging

extension KingfisherManager {
    /// Retrieves the image of `resource`: from a cache, or downloaded (a file URL is read by a
    /// ``LocalFileImageDataProvider`` instead), processed and cached.
    ///
    /// - Parameters:
    ///   - resource: the URL and cache key.
    ///   - options: added after ``defaultOptions``. Honoured here: `forceRefresh`, `fromMemoryCacheOrRefresh`,
    ///     `onlyFromCache`, `cacheMemoryOnly`, `waitForCache`, `cacheOriginalImage`, `targetCache`,
    ///     `originalCache`, `downloader`, `processor`, `cacheSerializer`, `imageModifier`, `alternativeSources`,
    ///     `callbackQueue`, `scaleFactor`, `processingQueue`, `forcedCacheFileExtension`,
    ///     `loadDiskFileSynchronously`, `asyncCacheTypeCheck`, the expirations and every downloader option. `nil` by default.
    ///   - progressBlock: download progress, on the callback queue. `nil` by default.
    ///   - downloadTaskUpdated: told when another download task takes over the retrieval (an alternative source).
    ///     Cancelling that task, or the returned one, cancels the whole retrieval. `nil` by default.
    ///   - completionHandler: called exactly once on the callback queue (`.untouch` by default), also when the
    ///     retrieval is cancelled (with an error whose ``KingfisherError/isTaskCancelled`` is `true`).
    /// - Returns: the task to cancel the retrieval with, alternative sources' downloads included; `nil` when the image was in the memory cache and the
    ///   completion handler has been called already.
    @discardableResult
    public func retrieveImage(
        with resource: any Resource,
        options: KingfisherOptionsInfo? = nil,
        progressBlock: DownloadProgressBlock? = nil,
        downloadTaskUpdated: DownloadTaskUpdatedBlock? = nil,
        completionHandler: (@Sendable (Result<RetrieveImageResult, KingfisherError>) -> Void)?
    ) -> DownloadTask? {
        retrieveImage(
            with: resource.convertToSource(), options: options, progressBlock: progressBlock,
            downloadTaskUpdated: downloadTaskUpdated, completionHandler: completionHandler)
    }

    /// Retrieves the image of `source`: from a cache, downloaded (network) or from its provider, processed and
    /// cached. See ``retrieveImage(with:options:progressBlock:downloadTaskUpdated:completionHandler:)-(any Resource,_,_,_,_)``.
    ///
    /// A provider's image is cached under the provider's ``ImageDataProvider/cacheKey``; a provider error reaches
    /// the caller as ``KingfisherError/ImageSettingErrorReason/dataProviderError(provider:error:)``.
    @discardableResult
    public func retrieveImage(
        with source: Source,
        options: KingfisherOptionsInfo? = nil,
        progressBlock: DownloadProgressBlock? = nil,
        downloadTaskUpdated: DownloadTaskUpdatedBlock? = nil,
        completionHandler: (@Sendable (Result<RetrieveImageResult, KingfisherError>) -> Void)?
    ) -> DownloadTask? {
        retrieveImage(
            with: source, parsedOptions: parsedOptions(options), progressBlock: progressBlock,
            downloadTaskUpdated: downloadTaskUpdated, completionHandler: completionHandler)
    }

    /// The callback retrieval with parsed options (the default options already applied); progressive previews go
    /// to `previewSink` (an image target's), else to ``ImageProgressive/onImageUpdated``.
    @discardableResult
    func retrieveImage(
        with source: Source,
        parsedOptions options: KingfisherParsedOptionsInfo,
        progressBlock: DownloadProgressBlock? = nil,
        downloadTaskUpdated: DownloadTaskUpdatedBlock? = nil,
        previewSink: PreviewSink? = nil,
        completionHandler: (@Sendable (Result<RetrieveImageResult, KingfisherError>) -> Void)?
    ) -> DownloadTask? {
        if let hit = memoryHit(source, options: options) {
            if let completionHandler {
                options.callbackQueue.execute { completionHandler(.success(hit)) }
            }
            return nil
        }
        let handle = DownloadTask()
        let retrieval = ImageRetrieval(
            source: source, options: options, manager: self, handle: handle, progressBlock: progressBlock,
            downloadTaskUpdated: downloadTaskUpdated, previewSink: previewSink)
        retrieval.start(completion: completionHandler)
        return handle
    }

    /// Step 1 on the caller's thread: the processed image in the target's memory cache, unless `forceRefresh`.
    /// An image that must be made again for these options (``CachedImageRebuild``) is left to the retrieval.
    func memoryHit(_ source: Source, options: KingfisherParsedOptionsInfo) -> RetrieveImageResult? {
        guard !options.forceRefresh else { return nil }
        let cache = options.targetCache ?? self.cache
        // Counted only when it is the answer: otherwise the retrieval looks again, and counts that.
        guard let image = cache.memoryImage(forKey: source.cacheKey, options: options),
            !CachedImageRebuild.isNeeded(for: image, options: options)
        else {
            return nil
        }
        var validation: HTTPValidation?
        if case .network = source, case let policy = options.httpCachePolicy ?? httpCachePolicy, policy.followsHeaders {
            // Answered here only when the record in memory says fresh; the retrieval decides everything else.
            let record = cache.httpRecords.rememberedRecord(forKey: source.cacheKey)
            let now = cache.diskStorage.config.now()
            guard record?.state(ofVariant: options.processor.identifier, at: now, policy: policy) == .fresh else {
                return nil
            }
            validation = .fresh
        }
        cache.metrics.countMemoryLookup(hit: true)
        options.logger?.trace("Memory cache hit", metadata: ["kf.key": "\(source.cacheKey)", "kf.tier": "memory"])
        let serializer = options.cacheSerializer
        return RetrieveImageResult(
            image: options.imageModifier?.modify(image) ?? image, cacheType: .memory, source: source,
            originalSource: source,
            data: { serializer.data(with: image, original: nil) }, metrics: nil, validation: validation)
    }
}
