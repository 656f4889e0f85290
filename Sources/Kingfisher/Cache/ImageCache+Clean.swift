import Foundation

extension ImageCache {
    /// Removes the image under `key@processorIdentifier` from memory at once and from disk off the caller's
    /// thread; `completionHandler` gets the disk error, if any.
    public func removeImage(
        forKey key: String, processorIdentifier identifier: String = "", forcedExtension: String? = nil,
        fromMemory: Bool = true, fromDisk: Bool = true, callbackQueue: CallbackQueue = .untouch,
        completionHandler: (@Sendable ((any Error)?) -> Void)? = nil
    ) {
        let computed = Self.computedKey(forKey: key, processorIdentifier: identifier)
        if fromMemory { memoryStorage.remove(forKey: computed) }
        guard fromDisk else {
            if let completionHandler { callbackQueue.execute { completionHandler(nil) } }
            return
        }
        ioQueue.async(flags: .barrier) {
            var failure: (any Error)?
            do {
                try self.diskStorage.remove(forKey: computed, forcedExtension: forcedExtension)
            } catch {
                failure = error
            }
            guard let completionHandler else { return }
            callbackQueue.execute { [failure] in completionHandler(failure) }
        }
    }

    /// Empties memory at once and the disk directory off the caller's thread; then calls `handler`.
    public func clearCache(completion handler: (@Sendable () -> Void)? = nil) {
        clearMemoryCache()
        clearDiskCache(completion: handler)
    }

    /// Empties the memory layer.
    public func clearMemoryCache() {
        memoryStorage.removeAll()
    }

    /// Removes every disk file off the caller's thread, then calls `handler` (on that thread).
    public func clearDiskCache(completion handler: (@Sendable () -> Void)? = nil) {
        ioQueue.async(flags: .barrier) {
            try? self.diskStorage.removeAll()
            handler?()
        }
    }

    /// Drops expired images from memory, and expired and size-exceeding files from disk; then calls `handler`.
    public func cleanExpiredCache(completion handler: (@Sendable () -> Void)? = nil) {
        cleanExpiredMemoryCache()
        cleanExpiredDiskCache(completion: handler)
    }

    /// Drops expired images from memory.
    public func cleanExpiredMemoryCache() {
        memoryStorage.removeExpired()
    }

    /// Removes expired files, then the least recently used ones while the size limit is exceeded, off the caller's
    /// thread; the removed files' hashes go to ``diskCacheCleanedEvents()``. Then calls `handler`.
    public func cleanExpiredDiskCache(completion handler: (@Sendable () -> Void)? = nil) {
        ioQueue.async(flags: .barrier) {
            _ = try? self.diskStorage.sweep()
            handler?()
        }
    }

    /// Measures the disk layer's size (bytes) off the caller's thread.
    public func calculateDiskStorageSize(
        completion handler: @escaping @Sendable (Result<UInt, KingfisherError>) -> Void
    ) {
        ioQueue.async {
            do throws(KingfisherError) {
                handler(.success(try self.diskStorage.totalSize()))
            } catch {
                handler(.failure(error))
            }
        }
    }

    /// The hashes (file names, as ``hash(forKey:processorIdentifier:forcedExtension:)`` gives) of the files each
    /// disk sweep removed: explicit ones (``cleanExpiredDiskCache(completion:)``), those after a write that went
    /// over the size limit, and the periodic ones. One element per sweep that removed something.
    ///
    /// Each call returns an independent stream; it ends when the cache is released or the consumer stops.
    ///
    /// ```swift
    /// Task { for await hashes in cache.diskCacheCleanedEvents() { log.info("evicted \(hashes.count)") } }
    /// ```
    ///
    /// - Note: Kingfisher posts `KingfisherDidCleanDiskCache` with `KingfisherDiskCacheCleanedHashKey`; this is
    ///   the Linux replacement, with no `NotificationCenter` or run loop involved.
    public func diskCacheCleanedEvents() -> AsyncStream<[String]> {
        let source = diskStorage.sweepEvents()
        return AsyncStream(bufferingPolicy: .bufferingNewest(64)) { continuation in
            let forwarder = Task {
                for await urls in source {
                    continuation.yield(urls.map(\.lastPathComponent))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in forwarder.cancel() }
        }
    }
}
