import Foundation
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
        CallbackEdge(on: options.callbackQueue, completionHandler).run {
            await self.imageFromDisk(forKey: key, options: options) ?? .success(nil)
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
