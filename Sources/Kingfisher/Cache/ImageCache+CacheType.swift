import Foundation

extension ImageCache {
    /// Where the image is cached, as ``imageCachedType(forKey:processorIdentifier:forcedExtension:)`` says, but with
    /// the disk probe (a `stat`) on the cache's I/O threads instead of the caller's thread. The memory check runs at
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
        io.submit {
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
        let computed = Self.computedKey(forKey: key, processorIdentifier: processorIdentifier)
        if memoryStorage.isCached(forKey: computed) { return .memory }
        return await isCachedOnDisk(computedKey: computed, forcedExtension: forcedExtension) ? .disk : .none
    }

    /// Whether the disk has the file of `computedKey`, probed on the cache's I/O threads.
    func isCachedOnDisk(computedKey: String, forcedExtension: String?) async -> Bool {
        await io.perform { self.diskStorage.isCached(forKey: computedKey, forcedExtension: forcedExtension) }
    }
}
