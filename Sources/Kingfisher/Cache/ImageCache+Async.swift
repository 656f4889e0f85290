public import Foundation
import KingfisherLocking

/// The `async` twins of ``ImageCache``'s callback APIs. Disk work runs on the cache's queue, as with callbacks.
extension ImageCache {
    /// Stores `image` in memory and, when `toDisk`, on disk; returns after the disk write.
    /// - Throws: the disk error (the memory store always succeeds).
    public func store(
        _ image: KFCrossPlatformImage, original: Data? = nil, forKey key: String,
        options: KingfisherParsedOptionsInfo, toDisk: Bool = true
    ) async throws(KingfisherError) {
        var options = options
        options.callbackQueue = .untouch
        let result = await withSanitizedCheckedContinuation { continuation in
            store(image, original: original, forKey: key, options: options, toDisk: toDisk) {
                continuation.resume(returning: $0.diskCacheResult)
            }
        }
        try result.get()
    }

    /// Stores `image` under `key@processorIdentifier`; returns after the disk write.
    public func store(
        _ image: KFCrossPlatformImage, original: Data? = nil, forKey key: String,
        processorIdentifier identifier: String = "", forcedExtension: String? = nil,
        cacheSerializer serializer: any CacheSerializer = DefaultCacheSerializer.default, toDisk: Bool = true
    ) async throws(KingfisherError) {
        let result = await withSanitizedCheckedContinuation { continuation in
            store(
                image, original: original, forKey: key, processorIdentifier: identifier,
                forcedExtension: forcedExtension, cacheSerializer: serializer, toDisk: toDisk
            ) { continuation.resume(returning: $0.diskCacheResult) }
        }
        try result.get()
    }

    /// Writes `data` to disk under `key@processorIdentifier`.
    public func storeToDisk(
        _ data: Data, forKey key: String, processorIdentifier identifier: String = "",
        forcedExtension: String? = nil, expiration: StorageExpiration? = nil
    ) async throws(KingfisherError) {
        let result = await withSanitizedCheckedContinuation { continuation in
            storeToDisk(
                data, forKey: key, processorIdentifier: identifier, forcedExtension: forcedExtension,
                expiration: expiration
            ) { continuation.resume(returning: $0.diskCacheResult) }
        }
        try result.get()
    }

    /// Looks the image up in memory, then on disk.
    public func retrieveImage(
        forKey key: String, options: KingfisherOptionsInfo? = nil
    ) async throws(KingfisherError) -> ImageCacheResult {
        try await retrieveImage(forKey: key, options: KingfisherParsedOptionsInfo(options))
    }

    /// Looks the image up in memory, then on disk, with parsed options.
    public func retrieveImage(
        forKey key: String, options: KingfisherParsedOptionsInfo
    ) async throws(KingfisherError) -> ImageCacheResult {
        var options = options
        options.callbackQueue = .untouch
        let result = await withSanitizedCheckedContinuation { continuation in
            retrieveImage(forKey: key, options: options) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// Reads and decodes the image from disk; `nil` on a miss.
    public func retrieveImageInDiskCache(
        forKey key: String, options: KingfisherOptionsInfo? = nil
    ) async throws(KingfisherError) -> KFCrossPlatformImage? {
        var parsed = KingfisherParsedOptionsInfo(options)
        parsed.callbackQueue = .untouch
        let result = await withSanitizedCheckedContinuation { continuation in
            retrieveImageInDiskCache(forKey: key, options: parsed) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// Removes the image from memory and disk; returns when the disk file is gone.
    /// - Throws: ``KingfisherError/CacheErrorReason/cannotRemoveCacheFile(fileURL:error:)`` when the file exists
    ///   and could not be removed (the callback form logs it instead).
    public func removeImage(
        forKey key: String, processorIdentifier identifier: String = "", forcedExtension: String? = nil,
        fromMemory: Bool = true, fromDisk: Bool = true
    ) async throws {
        let failure: KingfisherError? = await withSanitizedCheckedContinuation { continuation in
            removeImage(
                forKey: key, processorIdentifier: identifier, forcedExtension: forcedExtension,
                fromMemory: fromMemory, fromDisk: fromDisk
            ) { (failure: KingfisherError?) in continuation.resume(returning: failure) }
        }
        if let failure { throw failure }
    }

    /// Empties memory and disk.
    public func clearCache() async {
        await withSanitizedCheckedContinuation { continuation in clearCache { continuation.resume() } }
    }

    /// Removes every disk file.
    public func clearDiskCache() async {
        await withSanitizedCheckedContinuation { continuation in clearDiskCache { continuation.resume() } }
    }

    /// Drops expired images from memory and expired or size-exceeding files from disk.
    public func cleanExpiredCache() async {
        await withSanitizedCheckedContinuation { continuation in cleanExpiredCache { continuation.resume() } }
    }

    /// Removes expired and size-exceeding files from disk.
    public func cleanExpiredDiskCache() async {
        await withSanitizedCheckedContinuation { continuation in cleanExpiredDiskCache { continuation.resume() } }
    }

    /// The disk layer's size in bytes.
    public var diskStorageSize: UInt {
        get async throws(KingfisherError) {
            try await calculateDiskStorageSize()
        }
    }

    /// Measures the disk layer's size in bytes.
    public func calculateDiskStorageSize() async throws(KingfisherError) -> UInt {
        let result = await withSanitizedCheckedContinuation { continuation in
            calculateDiskStorageSize { continuation.resume(returning: $0) }
        }
        return try result.get()
    }
}
