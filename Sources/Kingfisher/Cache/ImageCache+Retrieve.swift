package import Foundation
import KingfisherLocking

extension ImageCache {
    /// Looks the image up in memory, then on disk; a disk hit is decoded with the options' serializer and put in
    /// memory. The key is `key@<processor identifier>`.
    /// - Parameters:
    ///   - options: processor, serializer, scale, expirations, `fromMemoryCacheOrRefresh`,
    ///     `loadDiskFileSynchronously`, `forcedCacheFileExtension`.
    ///   - callbackQueue: where `completionHandler` runs. `.untouch` by default (Kingfisher: `.mainCurrentOrAsync`).
    public func retrieveImage(
        forKey key: String, options: KingfisherOptionsInfo? = nil, callbackQueue: CallbackQueue = .untouch,
        completionHandler: (@Sendable (Result<ImageCacheResult, KingfisherError>) -> Void)?
    ) {
        var parsed = KingfisherParsedOptionsInfo(options)
        parsed.callbackQueue = callbackQueue
        retrieveImage(forKey: key, options: parsed, completionHandler: completionHandler)
    }

    /// As ``retrieveImage(forKey:options:callbackQueue:completionHandler:)``, calling back on
    /// `options.callbackQueue`.
    public func retrieveImage(
        forKey key: String, options: KingfisherParsedOptionsInfo,
        completionHandler: (@Sendable (Result<ImageCacheResult, KingfisherError>) -> Void)?
    ) {
        guard let completionHandler else { return }
        if let image = retrieveImageInMemoryCache(forKey: key, options: options) {
            options.callbackQueue.execute { completionHandler(.success(.memory(image))) }
            return
        }
        if options.fromMemoryCacheOrRefresh {
            options.callbackQueue.execute { completionHandler(.success(.none)) }
            return
        }
        // The disk hit goes to memory on the I/O thread; only the caller's callback hops to its queue.
        var diskOptions = options
        diskOptions.callbackQueue = .untouch
        retrieveImageInDiskCache(forKey: key, options: diskOptions) { result in
            let mapped = result.map { image -> ImageCacheResult in
                guard let image else { return .none }
                let computed = Self.computedKey(forKey: key, processorIdentifier: options.processor.identifier)
                self.memoryStorage.store(value: image, forKey: computed, expiration: options.memoryCacheExpiration)
                return .disk(image)
            }
            options.callbackQueue.execute { completionHandler(mapped) }
        }
    }

    /// The image in memory, or `nil`. Runs on the caller's thread; no I/O.
    public func retrieveImageInMemoryCache(
        forKey key: String, options: KingfisherOptionsInfo? = nil
    ) -> KFCrossPlatformImage? {
        retrieveImageInMemoryCache(forKey: key, options: KingfisherParsedOptionsInfo(options))
    }

    /// The image in memory under `key@<options.processor.identifier>`, or `nil`. Runs on the caller's thread.
    /// Counted as a memory hit or miss.
    public func retrieveImageInMemoryCache(
        forKey key: String, options: KingfisherParsedOptionsInfo
    ) -> KFCrossPlatformImage? {
        let image = memoryImage(forKey: key, options: options)
        metrics.countMemoryLookup(hit: image != nil)
        return image
    }

    /// The image in memory, not counted: for a caller that counts what it makes of it.
    func memoryImage(forKey key: String, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        let computed = Self.computedKey(forKey: key, processorIdentifier: options.processor.identifier)
        return memoryStorage.value(forKey: computed, extendingExpiration: options.memoryCacheAccessExtendingExpiration)
    }

    /// Reads and decodes the image from disk off the caller's thread (on it with `loadDiskFileSynchronously`).
    /// `.success(nil)` on a miss; a file that no longer decodes is removed and counts as a miss.
    public func retrieveImageInDiskCache(
        forKey key: String, options: KingfisherOptionsInfo? = nil, callbackQueue: CallbackQueue = .untouch,
        completionHandler: @escaping @Sendable (Result<KFCrossPlatformImage?, KingfisherError>) -> Void
    ) {
        var parsed = KingfisherParsedOptionsInfo(options)
        parsed.callbackQueue = callbackQueue
        retrieveImageInDiskCache(forKey: key, options: parsed, completionHandler: completionHandler)
    }

    /// As ``retrieveImageInDiskCache(forKey:options:callbackQueue:completionHandler:)``, calling back on
    /// `options.callbackQueue`.
    public func retrieveImageInDiskCache(
        forKey key: String, options: KingfisherParsedOptionsInfo,
        completionHandler: @escaping @Sendable (Result<KFCrossPlatformImage?, KingfisherError>) -> Void
    ) {
        guard !options.loadDiskFileSynchronously else {
            // Kingfisher's option: read and decode on the caller's thread.
            let computed = Self.computedKey(forKey: key, processorIdentifier: options.processor.identifier)
            let result = loadFromDisk(computedKey: computed, options: options)
            countDiskLookup(result, computedKey: computed, options: options)
            options.callbackQueue.execute { completionHandler(result) }
            return
        }
        DeliverOnce(on: options.callbackQueue, completionHandler).run {
            await self.imageFromDisk(forKey: key, options: options) ?? .success(nil)
        }
    }

    /// The disk hit of `key@<processor>`: its bytes read on ``io``, then decoded with the options' serializer on
    /// `decoder` with `engine`'s limits (the cache's own by default); a file that no longer decodes is removed and
    /// counts as a miss. Concurrent lookups of one entry (with the same image options) share one read and one
    /// decode. `nil` when the calling task was cancelled first. Each caller's lookup counts as a disk hit or miss.
    func imageFromDisk(
        forKey key: String, options: KingfisherParsedOptionsInfo, on decoder: DecodeStage? = nil,
        engine: ImageEngine.Configuration? = nil
    ) async -> Result<KFCrossPlatformImage?, KingfisherError>? {
        let computed = Self.computedKey(forKey: key, processorIdentifier: options.processor.identifier)
        let engine = engine ?? self.engine
        let found = await diskReads.value(for: DiskReadKey(computed, options, engine: engine)) { [self] in
            let read = await readFromDisk(
                computedKey: computed, options.forcedExtension, options.diskCacheAccessExtendingExpiration)
            guard case .success(let data?) = read else { return read.map { _ in nil } }
            let serializer = options.cacheSerializer
            let metrics = self.metrics
            // Every lookup waiting for this one left while its decode waited: the decode never runs.
            guard
                let decoded = await (decoder ?? self.decoder).runUnlessCancelled(
                    on: nil, decoding: data, engine: engine,
                    { metrics.timeDecode { serializer.image(with: data, options: options) } })
            else { return .success(nil) }
            guard let image = decoded else {
                // Garbage where an image was (a bad write by another tool, a damaged disk): drop it.
                logUndecodableFile(computedKey: computed, bytes: data.count)
                // Removed before the miss is reported, so a caller that checks the cache next sees it gone.
                let forcedExtension = options.forcedExtension
                _ = await io.perform(.exclusive) {
                    self.removeFromDisk(computedKey: computed, forcedExtension: forcedExtension)
                }
                return .success(nil)
            }
            return .success(image)
        }
        if let found { countDiskLookup(found, computedKey: computed, options: options) }
        return found
    }

    /// The bytes of the disk entry of `key` for the options' processor, read on ``io``, not decoded;
    /// `.success(nil)` on a miss. Counted as a disk lookup.
    func dataFromDisk(forKey key: String, options: KingfisherParsedOptionsInfo) async -> Result<Data?, KingfisherError>
    {
        let computed = Self.computedKey(forKey: key, processorIdentifier: options.processor.identifier)
        let read = await readFromDisk(
            computedKey: computed, options.forcedExtension, options.diskCacheAccessExtendingExpiration)
        countDiskLookup(read, computedKey: computed, options: options)
        return read
    }

    /// Removes the disk entry of `key` for the options' processor (bytes that turned out not to be an image).
    func removeUndecodable(forKey key: String, bytes: Int, options: KingfisherParsedOptionsInfo) async {
        let computed = Self.computedKey(forKey: key, processorIdentifier: options.processor.identifier)
        logUndecodableFile(computedKey: computed, bytes: bytes)
        let forcedExtension = options.forcedExtension
        _ = await io.perform(.exclusive) {
            self.removeFromDisk(computedKey: computed, forcedExtension: forcedExtension)
        }
    }

    /// The bytes of the disk entry under `computedKey` (a key with its processor's identifier already), read on
    /// ``io``, not decoded and not counted as a lookup; `nil` on a miss or a failed read. For `kf serve`.
    package func diskData(forComputedKey computedKey: String) async -> Data? {
        try? await readFromDisk(computedKey: computedKey, nil, .cacheTime).get()
    }

    /// The bytes of a disk entry, read on ``io``; `.success(nil)` on a miss.
    private func readFromDisk(
        computedKey: String, _ forcedExtension: String?, _ extending: ExpirationExtending
    ) async -> Result<Data?, KingfisherError> {
        await io.perform {
            Result { () throws(KingfisherError) -> Data? in
                try self.diskStorage.value(
                    forKey: computedKey, forcedExtension: forcedExtension, extendingExpiration: extending)
            }
        }
    }

    /// Reads, decodes, and removes a file that does not decode, on the calling thread (`loadDiskFileSynchronously`).
    func loadFromDisk(
        computedKey: String, options: KingfisherParsedOptionsInfo
    ) -> Result<KFCrossPlatformImage?, KingfisherError> {
        do {
            guard
                let data = try diskStorage.value(
                    forKey: computedKey, forcedExtension: options.forcedExtension,
                    extendingExpiration: options.diskCacheAccessExtendingExpiration)
            else { return .success(nil) }
            if let image = metrics.timeDecode({ options.cacheSerializer.image(with: data, options: options) }) {
                return .success(image)
            }
            // Garbage where an image was (a bad write by another tool, a damaged disk): drop it.
            logUndecodableFile(computedKey: computedKey, bytes: data.count)
            try? diskStorage.remove(forKey: computedKey, forcedExtension: options.forcedExtension)
            return .success(nil)
        } catch {
            return .failure(error)
        }
    }
}

/// What makes two disk lookups the same read and decode: the entry and the image options.
struct DiskReadKey: Hashable, Sendable {
    let computedKey: String
    let forcedExtension: String?
    let serializer: String
    let scale: Double
    let onlyFirstFrame: Bool
    let engine: ImageEngine.Configuration?

    init(_ computedKey: String, _ options: KingfisherParsedOptionsInfo, engine: ImageEngine.Configuration?) {
        self.computedKey = computedKey
        forcedExtension = options.forcedExtension
        serializer = String(describing: type(of: options.cacheSerializer))
        scale = Double(options.scaleFactor)
        onlyFirstFrame = options.onlyLoadFirstFrame
        self.engine = engine
    }
}
