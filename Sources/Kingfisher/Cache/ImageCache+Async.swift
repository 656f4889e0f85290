public import Foundation

/// ``ImageCache``'s `async` API: memory at once, disk work on the cache's I/O threads (``io``), queued in call
/// order with the callback API's work. The callback API runs the same steps and calls back instead.
extension ImageCache {
    /// Stores `image` in memory and, when `toDisk`, on disk; returns after the disk write.
    /// - Throws: the disk error (the memory store always succeeds).
    public func store(
        _ image: KFCrossPlatformImage, original: Data? = nil, forKey key: String,
        options: KingfisherParsedOptionsInfo, toDisk: Bool = true
    ) async throws(KingfisherError) {
        let computed = Self.computedKey(forKey: key, processorIdentifier: options.processor.identifier)
        memoryStorage.store(value: image, forKey: computed, expiration: options.memoryCacheExpiration)
        guard toDisk else { return }
        try await io.perform {
            self.encodeAndWrite(image, original: original, computedKey: computed, options: options)
        }.get()
    }

    /// Stores `image` under `key@processorIdentifier`; returns after the disk write.
    public func store(
        _ image: KFCrossPlatformImage, original: Data? = nil, forKey key: String,
        processorIdentifier identifier: String = "", forcedExtension: String? = nil,
        cacheSerializer serializer: any CacheSerializer = DefaultCacheSerializer.default, toDisk: Bool = true
    ) async throws(KingfisherError) {
        let options = Self.storeOptions(identifier, serializer: serializer, forcedExtension: forcedExtension)
        try await store(image, original: original, forKey: key, options: options, toDisk: toDisk)
    }

    /// Writes `data` to disk under `key@processorIdentifier`.
    public func storeToDisk(
        _ data: Data, forKey key: String, processorIdentifier identifier: String = "",
        forcedExtension: String? = nil, expiration: StorageExpiration? = nil
    ) async throws(KingfisherError) {
        let computed = Self.computedKey(forKey: key, processorIdentifier: identifier)
        try await io.perform(.exclusive) {
            self.writeToDisk(
                data, forKey: computed, expiration: expiration, writeOptions: [], forcedExtension: forcedExtension)
        }.get()
    }

    /// Looks the image up in memory, then on disk.
    public func retrieveImage(
        forKey key: String, options: KingfisherOptionsInfo? = nil
    ) async throws(KingfisherError) -> ImageCacheResult {
        try await retrieveImage(forKey: key, options: KingfisherParsedOptionsInfo(options))
    }

    /// Looks the image up in memory, then on disk, with parsed options; a disk hit goes to memory.
    public func retrieveImage(
        forKey key: String, options: KingfisherParsedOptionsInfo
    ) async throws(KingfisherError) -> ImageCacheResult {
        if let image = retrieveImageInMemoryCache(forKey: key, options: options) { return .memory(image) }
        guard !options.fromMemoryCacheOrRefresh else { return .none }
        guard let image = try await imageInDiskCache(forKey: key, options: options) else { return .none }
        let computed = Self.computedKey(forKey: key, processorIdentifier: options.processor.identifier)
        memoryStorage.store(value: image, forKey: computed, expiration: options.memoryCacheExpiration)
        return .disk(image)
    }

    /// Reads and decodes the image from disk; `nil` on a miss.
    public func retrieveImageInDiskCache(
        forKey key: String, options: KingfisherOptionsInfo? = nil
    ) async throws(KingfisherError) -> KFCrossPlatformImage? {
        try await imageInDiskCache(forKey: key, options: KingfisherParsedOptionsInfo(options))
    }

    /// The disk hit with parsed options: read and decoded on the calling thread with `loadDiskFileSynchronously`,
    /// else read on ``io`` and decoded on the cache's workers; `nil` on a miss (or when the calling task was
    /// cancelled before the disk answered).
    func imageInDiskCache(
        forKey key: String, options: KingfisherParsedOptionsInfo
    ) async throws(KingfisherError) -> KFCrossPlatformImage? {
        guard !options.loadDiskFileSynchronously else {
            let computed = Self.computedKey(forKey: key, processorIdentifier: options.processor.identifier)
            let result = loadFromDisk(computedKey: computed, options: options)
            countDiskLookup(result, computedKey: computed, options: options)
            return try result.get()
        }
        return try (await imageFromDisk(forKey: key, options: options) ?? .success(nil)).get()
    }

    /// Removes the image from memory and disk; returns when the disk file is gone.
    /// - Throws: ``KingfisherError/CacheErrorReason/cannotRemoveCacheFile(fileURL:error:)`` when the file exists
    ///   and could not be removed (the callback form logs it instead).
    public func removeImage(
        forKey key: String, processorIdentifier identifier: String = "", forcedExtension: String? = nil,
        fromMemory: Bool = true, fromDisk: Bool = true
    ) async throws {
        if let failure = await removal(
            forKey: key, processorIdentifier: identifier, forcedExtension: forcedExtension, fromMemory: fromMemory,
            fromDisk: fromDisk)
        {
            throw failure
        }
    }

    /// Empties memory and disk.
    public func clearCache() async {
        clearMemoryCache()
        await clearDiskCache()
    }

    /// Removes every disk file.
    public func clearDiskCache() async {
        httpRecords.forgetAll()
        await io.perform(.exclusive) { self.removeDiskFiles() }
    }

    /// Drops expired images from memory and expired or size-exceeding files from disk.
    public func cleanExpiredCache() async {
        cleanExpiredMemoryCache()
        await cleanExpiredDiskCache()
    }

    /// Removes expired and size-exceeding files from disk.
    public func cleanExpiredDiskCache() async {
        await io.perform(.exclusive) { _ = self.sweepDisk() }
    }

    /// The disk layer's size in bytes.
    public var diskStorageSize: UInt {
        get async throws(KingfisherError) {
            try await calculateDiskStorageSize()
        }
    }

    /// Measures the disk layer's size in bytes.
    public func calculateDiskStorageSize() async throws(KingfisherError) -> UInt {
        try await io.perform { self.measureDiskSize() }.get()
    }
}
