import Foundation
import Tracing

extension ImageRetrieval {
    /// Stage 1, memory: the image under `key@processor` in `cache`'s memory, counted as a memory lookup; `nil` on a
    /// miss. Nothing is read, decoded or started.
    func lookUpInMemory(_ key: String, in cache: ImageCache, options: KingfisherParsedOptionsInfo)
        -> KFCrossPlatformImage?
    {
        StageSpan.memory.runNow { span in
            let image = cache.retrieveImageInMemoryCache(forKey: key, options: options)
            span.attributes["kingfisher.hit"] = image != nil
            return image
        }
    }

    /// Whether the target cache has an entry of `key` for these options (in memory, or on disk unless
    /// `fromMemoryCacheOrRefresh`), without reading it.
    /// Each probe is its stage's span, marked `kingfisher.probe` (nothing read).
    func isInTargetCache(_ key: String, options: KingfisherParsedOptionsInfo) async -> Bool {
        let computed = ImageCache.computedKey(forKey: key, processorIdentifier: options.processor.identifier)
        let inMemory = StageSpan.memory.runNow { span in
            span.attributes["kingfisher.probe"] = true
            let hit = targetCache.memoryStorage.isCached(forKey: computed)
            span.attributes["kingfisher.hit"] = hit
            return hit
        }
        if inMemory { return true }
        guard !options.fromMemoryCacheOrRefresh else { return false }
        return await StageSpan.disk.run { span in
            span.attributes["kingfisher.probe"] = true
            let hit = await targetCache.isCachedOnDisk(computedKey: computed, forcedExtension: options.forcedExtension)
            span.attributes["kingfisher.hit"] = hit
            return hit
        }
    }
}

extension ImageCache {
    /// The image in memory, not counted: for a caller that counts what it makes of it.
    func memoryImage(forKey key: String, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        let computed = Self.computedKey(forKey: key, processorIdentifier: options.processor.identifier)
        return memoryStorage.value(forKey: computed, extendingExpiration: options.memoryCacheAccessExtendingExpiration)
    }
}
