import Foundation

extension ImageRetrieval {
    /// Stage 1, memory: the image under `key@processor` in `cache`'s memory, counted as a memory lookup; `nil` on a
    /// miss. Nothing is read, decoded or started.
    func lookUpInMemory(_ key: String, in cache: ImageCache, options: KingfisherParsedOptionsInfo)
        -> KFCrossPlatformImage?
    {
        cache.retrieveImageInMemoryCache(forKey: key, options: options)
    }

    /// Whether the target cache has an entry of `key` for these options (in memory, or on disk unless
    /// `fromMemoryCacheOrRefresh`), without reading it.
    func isInTargetCache(_ key: String, options: KingfisherParsedOptionsInfo) async -> Bool {
        let computed = ImageCache.computedKey(forKey: key, processorIdentifier: options.processor.identifier)
        if targetCache.memoryStorage.isCached(forKey: computed) { return true }
        guard !options.fromMemoryCacheOrRefresh else { return false }
        return await targetCache.isCachedOnDisk(computedKey: computed, forcedExtension: options.forcedExtension)
    }
}

extension ImageCache {
    /// The image in memory, not counted: for a caller that counts what it makes of it.
    func memoryImage(forKey key: String, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        let computed = Self.computedKey(forKey: key, processorIdentifier: options.processor.identifier)
        return memoryStorage.value(forKey: computed, extendingExpiration: options.memoryCacheAccessExtendingExpiration)
    }
}
