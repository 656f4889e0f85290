public import Foundation
import Logging

extension ImageCache {
    /// Stores `image` in memory at once and, when `toDisk`, the serializer's data on disk off the caller's thread.
    ///
    /// The key is `key@<options.processor.identifier>`. Memory takes `options.memoryCacheExpiration`; disk takes
    /// `options.diskCacheExpiration`, `options.forcedExtension` and `options.cacheSerializer`.
    /// - Parameter completionHandler: called on `options.callbackQueue` after the disk write finished (or at
    ///   once when `toDisk` is `false`) — what `waitForCache` waits for.
    public func store(
        _ image: KFCrossPlatformImage, original: Data? = nil, forKey key: String,
        options: KingfisherParsedOptionsInfo, toDisk: Bool = true,
        completionHandler: (@Sendable (CacheStoreResult) -> Void)? = nil
    ) {
        let computed = Self.computedKey(forKey: key, processorIdentifier: options.processor.identifier)
        memoryStorage.store(value: image, forKey: computed, expiration: options.memoryCacheExpiration)
        guard toDisk else {
            if let completionHandler {
                options.callbackQueue.execute {
                    completionHandler(CacheStoreResult(memoryCacheResult: .success(()), diskCacheResult: .success(())))
                }
            }
            return
        }
        io.submit {
            let diskResult = self.encodeAndWrite(image, original: original, computedKey: computed, options: options)
            guard let completionHandler else { return }
            options.callbackQueue.execute {
                completionHandler(CacheStoreResult(memoryCacheResult: .success(()), diskCacheResult: diskResult))
            }
        }
    }

    /// The options of the `store` APIs that take a processor identifier instead of options.
    static func storeOptions(
        _ identifier: String, serializer: any CacheSerializer, forcedExtension: String?
    ) -> KingfisherParsedOptionsInfo {
        var options = KingfisherParsedOptionsInfo(nil)
        options.processor = IdentifiedProcessor(identifier: identifier)
        options.cacheSerializer = serializer
        options.forcedExtension = forcedExtension
        return options
    }

    /// The serializer's bytes for `image` written under `computedKey`; a serializer that gives none fails with
    /// `cannotSerializeImage` (logged). Runs on ``io`` as a shared job (the file is replaced whole, so lookups go
    /// on meanwhile).
    func encodeAndWrite(
        _ image: KFCrossPlatformImage, original: Data?, computedKey computed: String,
        options: KingfisherParsedOptionsInfo
    ) -> Result<Void, KingfisherError> {
        guard let data = options.cacheSerializer.data(with: image, original: original) else {
            let reason = KingfisherError.CacheErrorReason.cannotSerializeImage(
                image: image, original: original, serializer: options.cacheSerializer)
            logFailedWrite(.cacheError(reason: reason), computedKey: computed)
            return .failure(.cacheError(reason: reason))
        }
        return writeToDisk(
            data, forKey: computed, expiration: options.diskCacheExpiration,
            writeOptions: options.diskStoreWriteOptions, forcedExtension: options.forcedExtension)
    }

    /// Stores `image` under `key@processorIdentifier`, with `cacheSerializer` for the disk data.
    /// - Parameter callbackQueue: where `completionHandler` runs. `.untouch` by default (Kingfisher:
    ///   `.untouch` too).
    public func store(
        _ image: KFCrossPlatformImage, original: Data? = nil, forKey key: String,
        processorIdentifier identifier: String = "", forcedExtension: String? = nil,
        cacheSerializer serializer: any CacheSerializer = DefaultCacheSerializer.default,
        toDisk: Bool = true, callbackQueue: CallbackQueue = .untouch,
        completionHandler: (@Sendable (CacheStoreResult) -> Void)? = nil
    ) {
        var options = Self.storeOptions(identifier, serializer: serializer, forcedExtension: forcedExtension)
        options.callbackQueue = callbackQueue
        store(
            image, original: original, forKey: key, options: options, toDisk: toDisk,
            completionHandler: completionHandler)
    }

    /// Writes already-encoded `data` to disk under `key@processorIdentifier`, off the caller's thread.
    /// - Parameter expiration: the file's expiration; ``DiskStorage/Config/expiration`` when `nil`.
    public func storeToDisk(
        _ data: Data, forKey key: String, processorIdentifier identifier: String = "",
        forcedExtension: String? = nil, expiration: StorageExpiration? = nil,
        callbackQueue: CallbackQueue = .untouch, completionHandler: (@Sendable (CacheStoreResult) -> Void)? = nil
    ) {
        let computed = Self.computedKey(forKey: key, processorIdentifier: identifier)
        io.submit(.exclusive) {
            let result = self.writeToDisk(
                data, forKey: computed, expiration: expiration, writeOptions: [], forcedExtension: forcedExtension)
            guard let completionHandler else { return }
            callbackQueue.execute {
                completionHandler(CacheStoreResult(memoryCacheResult: .success(()), diskCacheResult: result))
            }
        }
    }

    /// Queues the write of already-encoded bytes under `computedKey` on ``io`` now; `done` gets the
    /// failure, if any, on that queue.
    ///
    /// Shared, not exclusive: a prefetch writes many large files, each checksummed, and one at a time they kept
    /// one core busy while disk lookups waited. A write goes to a temporary file renamed into place, so a concurrent
    /// read sees the old file or the new one; clearing and removing are barriers, so they run after every write
    /// queued before them. (Two concurrent writes of one key can leave the size estimate one file off until the
    /// next measurement.)
    func enqueueWrite(
        _ data: Data, computedKey: String, expiration: StorageExpiration?, writeOptions: Data.WritingOptions = [],
        forcedExtension: String?, checksum: UInt32? = nil, done: (@Sendable (KingfisherError?) -> Void)? = nil
    ) {
        io.submit {
            let result = self.writeToDisk(
                data, forKey: computedKey, expiration: expiration, writeOptions: writeOptions,
                forcedExtension: forcedExtension, checksum: checksum)
            guard let done else { return }
            if case .failure(let error) = result { done(error) } else { done(nil) }
        }
    }

    /// Writes already-encoded bytes under `computedKey` on ``io`` (a shared job, as ``enqueueWrite``'s) and returns
    /// once they are written: the failure, if any.
    func write(
        _ data: Data, computedKey: String, expiration: StorageExpiration?, writeOptions: Data.WritingOptions = [],
        forcedExtension: String?, checksum: UInt32? = nil
    ) async -> KingfisherError? {
        let result = await io.perform {
            self.writeToDisk(
                data, forKey: computedKey, expiration: expiration, writeOptions: writeOptions,
                forcedExtension: forcedExtension, checksum: checksum)
        }
        if case .failure(let error) = result { return error }
        return nil
    }

    /// `checksum`: the CRC-32C of `data` when the caller computed it already.
    func writeToDisk(
        _ data: Data, forKey computedKey: String, expiration: StorageExpiration?,
        writeOptions: Data.WritingOptions, forcedExtension: String?, checksum: UInt32? = nil
    ) -> Result<Void, KingfisherError> {
        do {
            try diskStorage.store(
                value: data, forKey: computedKey, expiration: expiration, forcedExtension: forcedExtension,
                checksum: checksum)
            metrics.countWrite()
            sweepIfOverSizeLimit()
            return .success(())
        } catch {
            logFailedWrite(
                error, computedKey: computedKey, isHTTPRecord: forcedExtension == HTTPRecordStore.fileExtension)
            return .failure(error)
        }
    }

    /// Tells ``logger`` (at `warning`: the image is still the caller's, only not cached) and the metrics that nothing
    /// was stored under `computedKey`. `kf.file` says what the file was: `image`, or `http-record` for the HTTP
    /// caching record kept beside an image.
    func logFailedWrite(_ error: KingfisherError, computedKey: String, isHTTPRecord: Bool = false) {
        metrics.countWriteFailure()
        logger?.warning(
            "A disk cache write failed",
            metadata: [
                "kf.key": "\(computedKey)", "kf.cache": "\(diskStorage.config.name)",
                "kf.error": "\(error.errorDescription ?? "\(error)")", "kf.cause": "\(error.fileSystemCause)",
                "kf.file": isHTTPRecord ? "http-record" : "image",
            ])
    }
}

extension KingfisherError {
    /// For a cache file that could not be written, what the file system said ("No space left on device (errno
    /// 28)"), the same for every file; otherwise the whole description.
    var fileSystemCause: String {
        if case .cacheError(reason: .cannotCreateCacheFile(_, _, _, let error)) = self { return "\(error)" }
        return errorDescription ?? "\(self)"
    }
}

/// A processor that only carries an identifier, for the APIs that take `processorIdentifier:` instead of a
/// processor. It passes images through unchanged.
struct IdentifiedProcessor: ImageProcessor {
    let identifier: String

    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        switch item {
        case .image(let image): image
        case .data(let data):
            KingfisherWrapper<KFCrossPlatformImage>.image(data: data, options: options.imageCreatingOptions)
        }
    }
}
