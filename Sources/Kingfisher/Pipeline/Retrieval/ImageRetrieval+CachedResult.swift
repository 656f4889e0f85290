import Foundation
import KingfisherLocking

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
    /// Steps 1 and 2: memory, then disk, under `key@processor`. A disk read that fails counts as a miss. A disk
    /// hit goes to memory only once the retrieval has committed (nothing is written after a cancel).
    ///
    /// As in Kingfisher, a memory hit made from animated data with other image-creating options is made again from
    /// that data, and a disk hit of a serializer that keeps original data is processed (the file holds the
    /// unprocessed bytes). Kingfisher processes memory hits of such a serializer again too; here memory holds the
    /// processed image already, so they are not.
    func fromTargetCache(_ source: Source) async -> CacheStep {
        let options = internalOptions
        var validation: HTTPValidation?
        var revalidation: (resource: any Resource, record: HTTPCacheRecord)?
        if case .network(let resource) = source, let policy = httpPolicy(for: source) {
            // Following HTTP caching, the record decides before the entry is read: a stale entry costs a
            // conditional request, and its bytes are read only when they are to be used.
            guard await isInTargetCache(source.cacheKey, options: options) else { return .miss }
            switch await decide(resource, processorIdentifier: options.processor.identifier, policy: policy) {
            case .use(let how, let stale): (validation, revalidation) = (how, stale)
            case .end(let step): return step
            }
        }
        // (A 304 whose entry was removed meanwhile finds nothing here: the source is downloaded.)
        guard let (found, cacheType) = await lookUp(source.cacheKey, in: targetCache, options: options) else {
            return validation == nil ? .miss : .refetch
        }
        // Made again or processed first, when the cached image needs it; `nil` inside: cancelled meanwhile.
        var prepared: Result<KFCrossPlatformImage, KingfisherError>??
        if cacheType == .memory, CachedImageRebuild.isNeeded(for: found, options: options) {
            prepared = await CachedImageRebuild.rebuilt(found, options: options, on: workers, engine: engine)
        } else if cacheType == .disk, options.cacheSerializer.originalDataUsed, hasCustomProcessor {
            prepared = await CachedImageRebuild.processed(.image(found), options: options, on: workers, engine: engine)
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
        // The stale entry is read and in memory: only now may a revalidation replace it.
        if let revalidation { revalidateInBackground(revalidation.resource, record: revalidation.record) }
        let serializer = options.cacheSerializer
        return .done(
            .success(
                result(image, from: source, cacheType: cacheType, validation: validation) {
                    serializer.data(with: image, original: nil)
                }))
    }

    /// The image in `cache`'s memory (stage 1), or (unless `fromMemoryCacheOrRefresh`) decoded from its disk
    /// (stage 2), without writing anything; `nil` on a miss, a failed read, or a cancel before the disk read.
    func lookUp(
        _ key: String, in cache: ImageCache, options: KingfisherParsedOptionsInfo
    ) async -> (KFCrossPlatformImage, CacheType)? {
        if let image = lookUpInMemory(key, in: cache, options: options) { return (image, .memory) }
        guard let image = await lookUpOnDisk(key, in: cache, options: options) else { return nil }
        return (image, .disk)
    }
}
