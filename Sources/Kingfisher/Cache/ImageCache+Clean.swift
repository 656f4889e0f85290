import Foundation
import Logging

extension ImageCache {
    /// Removes the image under `key@processorIdentifier` (with `forcedExtension` on disk) from memory at once and
    /// from disk off the caller's thread, then calls `completionHandler` on `callbackQueue`.
    ///
    /// A disk removal that fails (anything but the file being gone already) is logged to ``logger``; the `async`
    /// ``removeImage(forKey:processorIdentifier:forcedExtension:fromMemory:fromDisk:)`` throws it instead.
    public func removeImage(
        forKey key: String, processorIdentifier identifier: String = "", forcedExtension: String? = nil,
        fromMemory: Bool = true, fromDisk: Bool = true, callbackQueue: CallbackQueue = .untouch,
        completionHandler: (@Sendable () -> Void)? = nil
    ) {
        removeImage(
            forKey: key, processorIdentifier: identifier, forcedExtension: forcedExtension, fromMemory: fromMemory,
            fromDisk: fromDisk
        ) { failure in
            if let failure {
                self.logger?.warning(
                    "A disk cache file could not be removed",
                    metadata: ["kf.key": "\(key)", "kf.error": "\(failure.errorDescription ?? "\(failure)")"])
            }
            guard let completionHandler else { return }
            callbackQueue.execute { completionHandler() }
        }
    }

    /// The removal, reporting the disk error (if any) on the I/O threads, or at once when `fromDisk` is `false`.
    func removeImage(
        forKey key: String, processorIdentifier identifier: String, forcedExtension: String?, fromMemory: Bool,
        fromDisk: Bool, reporting done: @escaping @Sendable (KingfisherError?) -> Void
    ) {
        let computed = Self.computedKey(forKey: key, processorIdentifier: identifier)
        if fromMemory { memoryStorage.remove(forKey: computed) }
        guard fromDisk else {
            done(nil)
            return
        }
        io.submit(.exclusive) { done(self.removeFromDisk(computedKey: computed, forcedExtension: forcedExtension)) }
    }

    /// The removal, `async`: returns once the file is gone, with the disk error, if any.
    func removal(
        forKey key: String, processorIdentifier identifier: String, forcedExtension: String?, fromMemory: Bool = true,
        fromDisk: Bool = true
    ) async -> KingfisherError? {
        let computed = Self.computedKey(forKey: key, processorIdentifier: identifier)
        if fromMemory { memoryStorage.remove(forKey: computed) }
        guard fromDisk else { return nil }
        return await io.perform(.exclusive) {
            self.removeFromDisk(computedKey: computed, forcedExtension: forcedExtension)
        }
    }

    /// Removes the file of `computedKey`; the error, unless the file was gone already. Runs on ``io``, exclusive.
    func removeFromDisk(computedKey: String, forcedExtension: String?) -> KingfisherError? {
        do throws(KingfisherError) {
            try diskStorage.remove(forKey: computedKey, forcedExtension: forcedExtension)
            return nil
        } catch {
            return error
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
        httpRecords.forgetAll()
        io.submit(.exclusive) {
            self.removeDiskFiles()
            handler?()
        }
    }

    /// Removes every file of the disk layer and every partial download. Runs on ``io``, exclusive.
    func removeDiskFiles() {
        try? diskStorage.removeAll()
        partialDownloads.removeAll()
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
    /// thread; the removed files' hashes go to ``diskCacheCleanedEvents()`` and, as in Kingfisher, to a
    /// `KingfisherDidCleanDiskCache` notification. Then calls `handler` (on that thread).
    public func cleanExpiredDiskCache(completion handler: (@Sendable () -> Void)? = nil) {
        io.submit(.exclusive) {
            self.sweepDisk()
            handler?()
        }
    }

    /// Measures the disk layer's size (bytes) off the caller's thread.
    public func calculateDiskStorageSize(
        completion handler: @escaping @Sendable (Result<UInt, KingfisherError>) -> Void
    ) {
        io.submit { handler(self.measureDiskSize()) }
    }

    /// The disk layer's size in bytes. Runs on ``io``.
    func measureDiskSize() -> Result<UInt, KingfisherError> {
        Result { () throws(KingfisherError) in try diskStorage.totalSize() }
    }

    /// The hashes (file names, as ``hash(forKey:processorIdentifier:forcedExtension:)`` gives) of the files each
    /// disk sweep removed: explicit ones (``cleanExpiredDiskCache(completion:)``), those after a write that went
    /// over the size limit, and the periodic ones. One element per sweep that removed something; the same sweeps
    /// post `Notification.Name.KingfisherDidCleanDiskCache`. Ours.
    ///
    /// Each call returns an independent stream; it ends when the cache is released or the consumer stops.
    ///
    /// ```swift
    /// Task { for await hashes in cache.diskCacheCleanedEvents() { log.info("evicted \(hashes.count)") } }
    /// ```
    public func diskCacheCleanedEvents() -> AsyncStream<[String]> {
        sweeper.addListener()
    }
}
