import Foundation

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
    public func retrieveImageInMemoryCache(
        forKey key: String, options: KingfisherParsedOptionsInfo
    ) -> KFCrossPlatformImage? {
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
        let computed = Self.computedKey(forKey: key, processorIdentifier: options.processor.identifier)
        let load: @Sendable () -> Void = {
            let result = self.loadFromDisk(computedKey: computed, options: options)
            options.callbackQueue.execute { completionHandler(result) }
        }
        if options.loadDiskFileSynchronously {
            load()
        } else {
            ioQueue.async(execute: load)
        }
    }

    /// Reads, decodes, and removes a file that does not decode. Blocking; call on `ioQueue`.
    func loadFromDisk(
        computedKey: String, options: KingfisherParsedOptionsInfo
    ) -> Result<KFCrossPlatformImage?, KingfisherError> {
        do {
            guard
                let data = try diskStorage.value(
                    forKey: computedKey, forcedExtension: options.forcedExtension,
                    extendingExpiration: options.diskCacheAccessExtendingExpiration)
            else { return .success(nil) }
            if let image = options.cacheSerializer.image(with: data, options: options) {
                return .success(image)
            }
            // Garbage where an image was (a bad write by another tool, a damaged disk): drop it.
            try? diskStorage.remove(forKey: computedKey, forcedExtension: options.forcedExtension)
            return .success(nil)
        } catch {
            return .failure(error)
        }
    }
}
