import Foundation

/// What step 4 of a retrieval produced: an image and the bytes it came from.
struct FetchedImage: Sendable {
    let image: KFCrossPlatformImage
    let originalData: Data
    let metrics: NetworkMetrics?
}

extension ImageRetrieval {
    /// The whole retrieval after the memory fast path: caches, then the network or the provider, then storing.
    func run() async {
        guard holdTask() else { return }
        let key = source.cacheKey
        if !options.forceRefresh {
            if await serveFromTargetCache(key: key) { return }
            if await serveFromOriginalCache(key: key) { return }
        }
        if options.onlyFromCache {
            guard commit() else { return }
            deliver(.failure(.cacheError(reason: .imageNotExisting(key: key))))
            return
        }
        let fetched: Result<FetchedImage, KingfisherError>
        switch source {
        case .network(let resource): fetched = await download(resource)
        case .provider(let provider): fetched = await provide(provider)
        }
        switch fetched {
        case .failure(let error):
            deliver(.failure(error))
        case .success(let value):
            guard commit() else { return }
            await store(value.image, original: value.originalData, key: key)
            let data = value.originalData
            succeed(value.image, cacheType: .none, metrics: value.metrics, data: { data })
        }
    }

    /// Steps 1 and 2: memory, then disk, under `key@processor`. `true` when the retrieval ended here.
    /// A disk read that fails counts as a miss.
    private func serveFromTargetCache(key: String) async -> Bool {
        guard !task.isCancelled else { return true }
        guard let cached = try? await targetCache.retrieveImage(forKey: key, options: internalOptions),
            let image = cached.image
        else { return false }
        guard commit() else { return true }
        let serializer = options.cacheSerializer
        succeed(image, cacheType: cached.cacheType, data: { serializer.data(with: image, original: nil) })
        return true
    }

    /// Step 3: for a processor other than the default, the original image under the plain key in the original
    /// cache, processed again and stored in the target cache. `true` when the retrieval ended here.
    private func serveFromOriginalCache(key: String) async -> Bool {
        guard hasCustomProcessor, !options.fromMemoryCacheOrRefresh, !task.isCancelled,
            originalCache.isCached(forKey: key, forcedExtension: options.forcedExtension),
            let cached = try? await originalCache.retrieveImage(forKey: key, options: originalOptions),
            let original = cached.image
        else { return false }
        guard !task.isCancelled else { return true }
        let processor = options.processor
        let processingOptions = internalOptions
        let processed = await ImageProcessingPool.run(on: options.processingQueue) {
            processor.process(item: .image(original), options: processingOptions)
        }
        guard let processed else {
            let reason = KingfisherError.ProcessorErrorReason.processingFailed(
                processor: processor, item: .image(original))
            guard commit() else { return true }
            deliver(.failure(.processorError(reason: reason)))
            return true
        }
        guard commit() else { return true }
        await store(processed, original: nil, key: key, storingOriginal: false)
        let serializer = options.cacheSerializer
        succeed(processed, cacheType: .none, data: { serializer.data(with: processed, original: nil) })
        return true
    }

    /// Step 4 for a network source: the downloader fetches, decodes and processes; it owns the task meanwhile.
    private func download(_ resource: any Resource) async -> Result<FetchedImage, KingfisherError> {
        let progress: DownloadProgressBlock? = progressBlock.map { block in
            let queue = options.callbackQueue
            return { received, total in queue.execute { block(received, total) } }
        }
        let loaded = await withCheckedContinuation { continuation in
            let caller = DownloadCaller(
                url: resource.downloadURL, options: internalOptions, task: task, progressBlock: progress,
                completion: { continuation.resume(returning: $0) })
            downloader.startAttempt(for: caller, retriedCount: 0, userInfo: nil)
        }
        return loaded.map { FetchedImage(image: $0.image, originalData: $0.originalData, metrics: $0.metrics) }
    }

    /// Step 4 for a provider: its data, decoded and processed on the processing pool.
    private func provide(_ provider: any ImageDataProvider) async -> Result<FetchedImage, KingfisherError> {
        let data: Data
        do {
            data = try await provider.data()
        } catch let error as KingfisherError {
            return .failure(error)
        } catch {
            return .failure(.imageSettingError(reason: .dataProviderError(provider: provider, error: error)))
        }
        // Cancelled while the provider worked: the caller was told; do no decoding.
        guard !task.isCancelled else { return .failure(.requestError(reason: .asyncTaskContextCancelled)) }
        let processingOptions = internalOptions
        let result = await ImageProcessingPool.run(on: options.processingQueue) {
            ImageDownloader.image(from: data, options: processingOptions)
        }
        return result.map { FetchedImage(image: $0, originalData: data, metrics: nil) }
    }

    /// Steps 6: the image in the target cache (memory now, disk unless `cacheMemoryOnly`) and, with
    /// `cacheOriginalImage` and a processor, the original bytes on disk under the plain key in the original
    /// cache. Returns after the disk writes with `waitForCache`, otherwise at once. Store errors are not
    /// reported: the image is still the result.
    ///
    /// - Note: Like Kingfisher, the original is kept as the bytes it came in, without decoding it again; with
    ///   `cacheMemoryOnly` it is not kept at all (Kingfisher writes it to disk even then).
    private func store(
        _ image: KFCrossPlatformImage, original: Data?, key: String, storingOriginal: Bool = true
    ) async {
        let toDisk = !options.cacheMemoryOnly
        let keepOriginal = storingOriginal && options.cacheOriginalImage && hasCustomProcessor && toDisk
        let wait = options.waitForCache
        let storeOptions = internalOptions
        let targetCache = self.targetCache
        let originalCache = self.originalCache
        let forcedExtension = options.forcedExtension
        let expiration = options.diskCacheExpiration
        let writes: @Sendable (@escaping @Sendable () -> Void) -> Void = { done in
            let pending = PendingCount(keepOriginal ? 2 : 1, then: done)
            targetCache.store(image, original: original, forKey: key, options: storeOptions, toDisk: toDisk) { _ in
                pending.arrive()
            }
            if keepOriginal, let original {
                originalCache.storeToDisk(
                    original, forKey: key, forcedExtension: forcedExtension, expiration: expiration
                ) { _ in pending.arrive() }
            } else if keepOriginal {
                pending.arrive()
            }
        }
        if wait {
            await withCheckedContinuation { continuation in writes { continuation.resume() } }
        } else {
            writes {}
        }
    }
}
