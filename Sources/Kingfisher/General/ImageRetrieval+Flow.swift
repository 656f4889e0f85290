import Foundation
import KingfisherLocking

/// What makes two provider loads the same: the provider's key and the processing.
struct ProviderLoadKey: Hashable, Sendable {
    let cacheKey: String
    let processing: ProcessingKey
}

/// What step 4 of a retrieval produced: an image and the bytes it came from.
struct FetchedImage: Sendable {
    let image: KFCrossPlatformImage
    let originalData: Data
    let metrics: NetworkMetrics?
    /// The response's header fields and times, for a download.
    var response: ResponseHeaders?
    /// A `304` to a revalidation: no image, the cached entry stands.
    var isNotModified = false
}

/// What a cache step found.
enum CacheStep {
    /// Not cached: go on to the next step.
    case miss
    /// The retrieval was cancelled; ``ImageRetrieval/run()`` makes sure the caller is told.
    case cancelled
    /// The retrieval of this source ended here.
    case done(Result<RetrieveImageResult, KingfisherError>)
    /// Cached, but following HTTP caching it must be downloaded again.
    case refetch
}

extension ImageRetrieval {
    /// The whole retrieval after the memory fast path: the source, then its alternatives while they fail.
    func run() async -> Result<RetrieveImageResult, KingfisherError> {
        var source = originalSource
        var alternatives = options.alternativeSources ?? []
        var failures: [PropagationError] = []
        while true {
            // A provider source reports its own cancellation from the start, as Kingfisher's (whose provider is
            // called before retrieveImage returns).
            if case .provider(let provider) = source {
                handle.report(.requestError(reason: .dataProviderCancelled(provider: provider)))
            } else {
                handle.report(.requestError(reason: .asyncTaskContextCancelled))
            }
            guard !isCancelled, let outcome = await attempt(source) else {
                return .failure(cancellationError)
            }
            switch outcome {
            case .success(let value):
                return .success(value)
            case .failure(let error) where error.isTaskCancelled || isCancelled:
                return .failure(error.isTaskCancelled ? error : cancellationError)
            case .failure(let error):
                failures.append(PropagationError(source: source, error: error))
                guard !alternatives.isEmpty else {
                    let final =
                        failures.count == 1 ? error : .imageSettingError(reason: .alternativeSourcesExhausted(failures))
                    return .failure(final)
                }
                source = alternatives.removeFirst()
                guard replaceHandle() else { return .failure(cancellationError) }
            }
        }
    }

    /// One source: caches, then the network or the provider (or, for a network source on a constrained network, the
    /// low-data source), then storing. `nil` when the retrieval was cancelled.
    private func attempt(
        _ source: Source, lowDataSourceAllowed: Bool = true
    ) async -> Result<RetrieveImageResult, KingfisherError>? {
        let key = source.cacheKey
        // Following HTTP caching, a forced refresh of an entry that is there replaces it; of nothing, it fetches.
        var replacing = false
        if options.forceRefresh, httpPolicy(for: source) != nil {
            replacing = await isInTargetCache(key, options: internalOptions)
        }
        if !options.forceRefresh {
            guard !isCancelled else { return nil }
            switch await fromTargetCache(source) {
            case .miss: break
            case .refetch: replacing = true
            case .cancelled: return nil
            case .done(let outcome): return outcome
            }
            switch await fromOriginalCache(source) {
            case .miss: break
            case .refetch: replacing = true
            case .cancelled: return nil
            case .done(let outcome): return outcome
            }
        }
        if options.onlyFromCache {
            return .failure(.cacheError(reason: .imageNotExisting(key: key)))
        }
        if lowDataSourceAllowed, case .network = source, let lowData = options.lowDataModeSource,
            downloader.isNetworkConstrained
        {
            // Kingfisher's main request fails on a constrained network and the low-data source is loaded instead,
            // through the caches; it is loaded whatever the network, as Kingfisher clears the option for it.
            return await attempt(lowData, lowDataSourceAllowed: false)
        }
        let fetched: Result<FetchedImage, KingfisherError>
        switch source {
        case .network(let resource): fetched = await download(resource)
        case .provider(let provider): fetched = await provide(provider)
        }
        switch fetched {
        case .failure(let error):
            return .failure(error)
        case .success(let value):
            return await finish(value, from: source, replacing: replacing)
        }
    }

    /// Stores a fetched image and makes the result; `nil` when the retrieval was cancelled first. Following HTTP
    /// caching, the response's record is stored too, and the result says `refetched` when it `replac`es a cached
    /// entry, else `fetched`.
    func finish(
        _ value: FetchedImage, from source: Source, replacing: Bool
    ) async -> Result<RetrieveImageResult, KingfisherError>? {
        if value.isNotModified {
            // A 304 nobody asked for (a request modifier's own conditional headers): there is no image.
            return .failure(.responseError(reason: .URLSessionError(error: URLError(.badServerResponse))))
        }
        guard commit() else { return nil }
        let policy = httpPolicy(for: source)
        let record = policy.flatMap { _ in value.response.flatMap { HTTPFreshness.record(of: value.originalData, $0) } }
        let stored = await store(
            value.image, original: value.originalData, key: source.cacheKey,
            toDisk: policy == nil || record != nil, record: record)
        let data = value.originalData
        return .success(
            result(
                value.image, from: source, cacheType: .none, metrics: value.metrics, stored: stored,
                validation: policy == nil ? nil : (replacing ? .refetched : .fetched)
            ) { data })
    }

    /// Steps 1 and 2: memory, then disk, under `key@processor`. A disk read that fails counts as a miss. A disk
    /// hit goes to memory only once the retrieval has committed (nothing is written after a cancel).
    ///
    /// As in Kingfisher, a memory hit made from animated data with other image-creating options is made again from
    /// that data, and a disk hit of a serializer that keeps original data is processed (the file holds the
    /// unprocessed bytes). Kingfisher processes memory hits of such a serializer again too; here memory holds the
    /// processed image already, so they are not.
    private func fromTargetCache(_ source: Source) async -> CacheStep {
        let options = internalOptions
        var validation: HTTPValidation?
        if case .network(let resource) = source, let policy = httpPolicy(for: source) {
            // Following HTTP caching, the record decides before the entry is read: a stale entry costs a
            // conditional request, and its bytes are read only when they are to be used.
            guard await isInTargetCache(source.cacheKey, options: options) else { return .miss }
            switch await validate(resource, processorIdentifier: options.processor.identifier, policy: policy) {
            case .use(let how): validation = how
            case .replaced(let outcome): return outcome.map(CacheStep.done) ?? .cancelled
            case .refetch: return .refetch
            case .failed(let error): return .done(.failure(error))
            }
        }
        // (A 304 whose entry was removed meanwhile finds nothing here: the source is downloaded.)
        guard let (found, cacheType) = await lookUp(source.cacheKey, in: targetCache, options: options) else {
            return validation == nil ? .miss : .refetch
        }
        // Made again or processed first, when the cached image needs it; `nil` inside: cancelled meanwhile.
        var prepared: Result<KFCrossPlatformImage, KingfisherError>??
        if cacheType == .memory, CachedImageRebuild.isNeeded(for: found, options: options) {
            prepared = await CachedImageRebuild.rebuilt(found, options: options, on: decoder, engine: engine)
        } else if cacheType == .disk, options.cacheSerializer.originalDataUsed, hasCustomProcessor {
            prepared = await CachedImageRebuild.processed(.image(found), options: options, on: decoder, engine: engine)
        }
        let image: KFCrossPlatformImage
        switch prepared {
        case nil: image = found
        case .some(nil): return .cancelled
        case .success(let made): image = made
        case .failure(let error): return .done(.failure(error))
        }
        guard commit() else { return .cancelled }
        if cacheType == .disk {
            let computed = ImageCache.computedKey(
                forKey: source.cacheKey, processorIdentifier: options.processor.identifier)
            targetCache.memoryStorage.store(value: image, forKey: computed, expiration: options.memoryCacheExpiration)
        }
        let serializer = options.cacheSerializer
        return .done(
            .success(
                result(image, from: source, cacheType: cacheType, validation: validation) {
                    serializer.data(with: image, original: nil)
                }))
    }

    /// Whether the target cache has an entry of `key` for these options (in memory, or on disk unless
    /// `fromMemoryCacheOrRefresh`), without reading it.
    private func isInTargetCache(_ key: String, options: KingfisherParsedOptionsInfo) async -> Bool {
        let computed = ImageCache.computedKey(forKey: key, processorIdentifier: options.processor.identifier)
        if targetCache.memoryStorage.isCached(forKey: computed) { return true }
        guard !options.fromMemoryCacheOrRefresh else { return false }
        return await targetCache.isCachedOnDisk(computedKey: computed, forcedExtension: options.forcedExtension)
    }

    /// The image in `cache`'s memory, or (unless `fromMemoryCacheOrRefresh`) decoded from its disk, without
    /// writing anything; `nil` on a miss, a failed read, or a cancel before the disk read.
    private func lookUp(
        _ key: String, in cache: ImageCache, options: KingfisherParsedOptionsInfo
    ) async -> (KFCrossPlatformImage, CacheType)? {
        if let image = cache.retrieveImageInMemoryCache(forKey: key, options: options) { return (image, .memory) }
        guard !options.fromMemoryCacheOrRefresh, !isCancelled else { return nil }
        guard case .success(let image?)? = await cache.imageFromDisk(forKey: key, options: options, on: decoder) else {
            return nil
        }
        return (image, .disk)
    }

    /// Step 3: for a processor other than the default, the original image under the plain key in the original
    /// cache, processed again and stored in the target cache.
    ///
    /// - Note: Unlike Kingfisher, an original read from disk is not put in the memory cache: it is usually the
    ///   large image the processor exists to avoid keeping.
    private func fromOriginalCache(_ source: Source) async -> CacheStep {
        let key = source.cacheKey
        guard hasCustomProcessor, !options.fromMemoryCacheOrRefresh, !isCancelled, await isOriginalCached(key)
        else { return .miss }
        var validation: HTTPValidation?
        if case .network(let resource) = source, let policy = httpPolicy(for: source) {
            // The original's record decides before it is read: fresh, it is processed again; stale, it is
            // revalidated first (a 304 keeps it, a 200 is the new image, processed as downloaded).
            switch await validate(resource, processorIdentifier: "", policy: policy) {
            case .use(let how): validation = how
            case .replaced(let outcome): return outcome.map(CacheStep.done) ?? .cancelled
            case .refetch: return .refetch
            case .failed(let error): return .done(.failure(error))
            }
        }
        let outcome: Result<KFCrossPlatformImage, KingfisherError>
        switch await processedOriginal(key) {
        case .some(let processed): outcome = processed
        case .none: return isCancelled ? .cancelled : .miss
        }
        let processed: KFCrossPlatformImage
        switch outcome {
        case .success(let image): processed = image
        case .failure(let error): return .done(.failure(error))
        }
        guard commit() else { return .cancelled }
        let stored = await store(processed, original: nil, key: key, storingOriginal: false)
        if validation != nil {
            await HTTPFreshness.addVariant(options.processor.identifier, forKey: key, in: targetCache)
        }
        let serializer = options.cacheSerializer
        return .done(
            .success(
                result(processed, from: source, cacheType: .none, stored: stored, validation: validation) {
                    serializer.data(with: processed, original: nil)
                }))
    }

    /// The cached original of `key` processed by the options' processor; `nil` when it is not cached (or the
    /// retrieval was cancelled). An original in memory is processed as an image. One on disk is processed from its
    /// bytes when the serializer decodes them the default way, so a downsampling processor shrinks it on load
    /// instead of decoding it at full size first; bytes that are no image are removed and count as a miss.
    private func processedOriginal(_ key: String) async -> Result<KFCrossPlatformImage, KingfisherError>? {
        let processingOptions = internalOptions
        let metrics = self.metrics
        let lookupOptions = originalOptions
        let inMemory = originalCache.retrieveImageInMemoryCache(forKey: key, options: lookupOptions)
        if inMemory == nil, lookupOptions.cacheSerializer is any DefaultDecodingCacheSerializer {
            guard !isCancelled,
                case .success(let data?) = await originalCache.dataFromDisk(forKey: key, options: lookupOptions)
            else { return nil }
            guard !isCancelled else { return nil }
            // A retrieval cancelled while its decode waits leaves the queue: the decode never runs.
            guard
                let outcome = await decoder.runUnlessCancelled(
                    on: options.processingQueue, decoding: data, engine: engine,
                    { metrics.timeOriginal { ProcessingStage.image(from: data, options: processingOptions) } })
            else { return nil }
            if case .failure(.processorError(.processingFailed(let processor as DecodingFailedProcessor, _))) = outcome,
                processor.reason.meansNotAnImage
            {
                await originalCache.removeUndecodable(forKey: key, bytes: data.count, options: lookupOptions)
                return nil
            }
            return outcome
        }
        guard let (original, _) = await lookUp(key, in: originalCache, options: lookupOptions), !isCancelled else {
            return nil
        }
        return await decoder.runUnlessCancelled(on: options.processingQueue, engine: engine) {
            metrics.timeOriginal { ProcessingStage.image(processing: original, options: processingOptions) }
        }
    }

    /// The existence probe before reading an original: memory, then a `stat` on the original cache's I/O threads
    /// (never a thread of the cooperative pool; Kingfisher's `asyncCacheTypeCheck` asks for as much).
    private func isOriginalCached(_ key: String) async -> Bool {
        await originalCache.imageCachedTypeAsync(forKey: key, forcedExtension: options.forcedExtension).cached
    }

    /// Step 4 for a network source: the downloader fetches, decodes and processes (a download shared with every
    /// concurrent caller of the same request). Cancelling the retrieval's task cancels this caller's part of it.
    /// With `conditionalHeaders`, the download is a revalidation of the cached entry (a 304 comes back as
    /// ``FetchedImage/isNotModified``).
    func download(
        _ resource: any Resource, conditionalHeaders: [String: String]? = nil
    ) async -> Result<FetchedImage, KingfisherError> {
        let progress: DownloadProgressBlock? = progressBlock.map { block in
            let queue = options.callbackQueue
            return { received, total in queue.execute { block(received, total) } }
        }
        var downloadOptions = internalOptions
        downloadOptions.conditionalHeaders = conditionalHeaders
        if options.httpCachePolicy?.resumes == true { downloadOptions.partialDownloads = targetCache.partialDownloads }
        let loaded = await downloader.download(
            resource.downloadURL, options: downloadOptions, progressBlock: progress, handle: handle, decoder: decoder)
        let clock = targetCache.diskStorage.config.now
        return loaded.map {
            FetchedImage(
                image: $0.image, originalData: $0.originalData, metrics: $0.metrics,
                response: $0.response?.measured(by: clock), isNotModified: $0.isNotModified)
        }
    }

    /// Step 4 for a provider: its data, decoded and processed on the decode executor. Concurrent retrievals of one
    /// provider key with the same processing share one load (see ``ImagePipeline/providerLoads``); the load is
    /// cancelled when every retrieval waiting for it was, so a provider that honours task cancellation (a
    /// ``ThumbnailImageDataProvider`` downloading) stops early. A cancel from here until the commit reports
    /// ``KingfisherError/RequestErrorReason/dataProviderCancelled(provider:)`` at once (as Kingfisher 8.11 does,
    /// except that Kingfisher waits for a provider that ignores cancellation to return).
    private func provide(_ provider: any ImageDataProvider) async -> Result<FetchedImage, KingfisherError> {
        let cancelled = KingfisherError.requestError(reason: .dataProviderCancelled(provider: provider))
        handle.report(cancelled)
        guard !isCancelled else { return .failure(cancelled) }
        let processingOptions = internalOptions
        let key = ProviderLoadKey(cacheKey: provider.cacheKey, processing: ProcessingKey(processingOptions))
        let (metrics, decoder, engine) = (self.metrics, self.decoder, self.engine)
        let loaded = await providerLoads.value(for: key) {
            await Self.load(provider, options: processingOptions, on: decoder, engine: engine, metrics: metrics)
        }
        // Cancelled while the provider worked: the caller was told.
        guard let loaded, !isCancelled else { return .failure(cancelled) }
        return loaded
    }

    /// A provider's data, decoded and processed.
    private static func load(
        _ provider: any ImageDataProvider, options: KingfisherParsedOptionsInfo, on decoder: DecodeStage,
        engine: ImageEngine.Configuration, metrics: ManagerMetrics
    ) async -> Result<FetchedImage, KingfisherError> {
        let data: Data
        do {
            data = try await provider.data()
        } catch let error as KingfisherError {
            return .failure(error)
        } catch {
            return .failure(.imageSettingError(reason: .dataProviderError(provider: provider, error: error)))
        }
        guard !Task.isCancelled else {
            return .failure(.requestError(reason: .dataProviderCancelled(provider: provider)))
        }
        guard
            let result = await decoder.runUnlessCancelled(
                on: options.processingQueue, decoding: data, engine: engine,
                { metrics.timeProvider { ProcessingStage.image(from: data, options: options) } })
        else { return .failure(.requestError(reason: .dataProviderCancelled(provider: provider))) }
        return result.map { FetchedImage(image: $0, originalData: data, metrics: nil) }
    }
}
