import Foundation
import KingfisherLocking

extension ImageCache {
    /// Where the image is cached, as ``imageCachedType(forKey:processorIdentifier:forcedExtension:)`` says, but with
    /// the disk probe (a `stat`) on the cache's I/O queue instead of the caller's thread. The memory check runs at
    /// once. What `.asyncCacheTypeCheck` uses.
    /// - Parameter callbackQueue: where `completionHandler` runs. `.untouch` by default.
    public func imageCachedTypeAsync(
        forKey key: String, processorIdentifier: String = DefaultImageProcessor.default.identifier,
        forcedExtension: String? = nil, callbackQueue: CallbackQueue = .untouch,
        completionHandler: @escaping @Sendable (CacheType) -> Void
    ) {
        let computed = Self.computedKey(forKey: key, processorIdentifier: processorIdentifier)
        if memoryStorage.isCached(forKey: computed) {
            callbackQueue.execute { completionHandler(.memory) }
            return
        }
        ioQueue.async {
            let onDisk = self.diskStorage.isCached(forKey: computed, forcedExtension: forcedExtension)
            callbackQueue.execute { completionHandler(onDisk ? .disk : .none) }
        }
    }

    /// The `async` twin of
    /// ``imageCachedTypeAsync(forKey:processorIdentifier:forcedExtension:callbackQueue:completionHandler:)``.
    public func imageCachedTypeAsync(
        forKey key: String, processorIdentifier: String = DefaultImageProcessor.default.identifier,
        forcedExtension: String? = nil
    ) async -> CacheType {
        await withSanitizedCheckedContinuation { continuation in
            imageCachedTypeAsync(
                forKey: key, processorIdentifier: processorIdentifier, forcedExtension: forcedExtension
            ) { continuation.resume(returning: $0) }
        }
    }
}
