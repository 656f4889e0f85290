import Foundation
import KingfisherLocking
import Tracing

/// What concurrent retrievals storing one image under one key share: they encode it and write it once.
struct DiskStoreKey: Hashable, Sendable {
    let targetCache: ObjectIdentifier
    let originalCache: ObjectIdentifier
    let computedKey: String
    /// The image being stored: retrievals that share a download and its processing store the same instance.
    let image: ObjectIdentifier
    /// What the writes are made of and how they are made, so only retrievals writing the same things share.
    let serializer: String
    let expiration: String
    let forcedExtension: String?
    let keepsOriginal: Bool
    let toDisk: Bool
    let hasRecord: Bool
    /// Whether the callers wait for the writes (`waitForCache`).
    let waits: Bool
}

/// What the store step did.
struct StoreOutcome: Sendable {
    /// The first disk write's failure, when the writes were waited for.
    var failure: KingfisherError?
    /// The bytes the serializer encoded for the disk entry, when it made them.
    var encoded: Data?
}

extension ImageRetrieval {
    /// Step 6: the image in the target cache (memory now, disk unless `cacheMemoryOnly`) and, with
    /// `cacheOriginalImage` and a processor, the original bytes on disk under the plain key in the original
    /// cache. Returns after the disk writes with `waitForCache`, otherwise once they are queued. Concurrent
    /// retrievals storing the same image under the same key (a burst of one URL shares its download and
    /// processing) encode and write it once, and all get its bytes.
    /// - Returns: the first disk write's failure, when the writes were waited for (failures of writes not waited
    ///   for reach only the cache's logger), and the encoded bytes. The image is the result either way.
    ///
    /// - Note: Like Kingfisher, the original is kept as the bytes it came in, without decoding it again; with
    ///   `cacheMemoryOnly` it is not kept at all (Kingfisher writes it to disk even then).
    func store(
        _ image: KFCrossPlatformImage, original: Data?, originalChecksum: UInt32? = nil, key: String,
        storingOriginal: Bool = true, toDisk allowedOnDisk: Bool = true, record: HTTPCacheRecord? = nil
    ) async -> StoreOutcome {
        await StageSpan.store.run { span in
            span.attributes["kingfisher.to_disk"] = !options.cacheMemoryOnly && allowedOnDisk
            return await storing(
                image, original: original, originalChecksum: originalChecksum, key: key,
                storingOriginal: storingOriginal, toDisk: allowedOnDisk, record: record)
        }
    }

    private func storing(
        _ image: KFCrossPlatformImage, original: Data?, originalChecksum: UInt32?, key: String,
        storingOriginal: Bool, toDisk allowedOnDisk: Bool, record: HTTPCacheRecord?
    ) async -> StoreOutcome {
        let toDisk = !options.cacheMemoryOnly && allowedOnDisk
        let keepOriginal = storingOriginal && options.cacheOriginalImage && hasCustomProcessor && toDisk
        // Memory now, for this caller (an original-bytes retrieval has no image to keep); the disk entry is shared.
        if case .image = mode {
            targetCache.store(image, forKey: key, options: internalOptions, toDisk: false, completionHandler: nil)
        }
        if !toDisk, record == nil {
            if options.httpCachePolicy?.followsHeaders == true {
                // `no-store`: nothing of this response on disk, and no older entries either.
                await HTTPFreshness.removeEverything(forKey: key, in: targetCache, originalCache: originalCache)
            }
            return StoreOutcome()
        }
        let shared = DiskStoreKey(
            targetCache: ObjectIdentifier(targetCache), originalCache: ObjectIdentifier(originalCache),
            computedKey: ImageCache.computedKey(forKey: key, processorIdentifier: options.processor.identifier),
            image: ObjectIdentifier(image), serializer: String(reflecting: type(of: options.cacheSerializer)),
            expiration: options.diskCacheExpiration.map { "\($0)" } ?? "", forcedExtension: options.forcedExtension,
            keepsOriginal: keepOriginal, toDisk: toDisk, hasRecord: record != nil, waits: options.waitForCache)
        // `nil` when this retrieval's task was cancelled meanwhile: the writes go on for the others (or alone).
        return await pipeline.diskStores.value(for: shared) { [self] in
            await writeToDisk(
                image, original: original, originalChecksum: originalChecksum, keepOriginal: keepOriginal, key: key,
                toDisk: toDisk, record: record)
        } ?? StoreOutcome()
    }

    /// Encodes the image (when `toDisk`; the serializer gets the original bytes too) and writes it, the original
    /// with `keepOriginal`, and the response's record after them; waits for the writes with `waitForCache`.
    /// `originalChecksum` (the original's CRC-32C, when computed already) is the checksum of every file that
    /// holds the original bytes themselves.
    private func writeToDisk(
        _ image: KFCrossPlatformImage, original: Data?, originalChecksum: UInt32?, keepOriginal: Bool, key: String,
        toDisk: Bool, record: HTTPCacheRecord?
    ) async -> StoreOutcome {
        let storeOptions = internalOptions
        let expiration = options.diskCacheExpiration
        let forcedExtension = options.forcedExtension
        var writes: [PendingWrite] = []
        var outcome = StoreOutcome()
        if toDisk {
            switch await encoded(image, original: original, key: key, options: storeOptions) {
            case .success(let data):
                outcome.encoded = data
                let computed = ImageCache.computedKey(forKey: key, processorIdentifier: options.processor.identifier)
                writes.append(
                    PendingWrite(
                        cache: targetCache, data: data, computedKey: computed,
                        writeOptions: options.diskStoreWriteOptions,
                        checksum: Self.isSameBuffer(data, original) ? originalChecksum : nil))
            case .failure(let error):
                outcome.failure = error
            }
        }
        if keepOriginal, let original {
            writes.append(
                PendingWrite(
                    cache: originalCache, data: original, computedKey: key, writeOptions: [], checksum: originalChecksum
                ))
        }
        // The response's record follows the entries it describes (see HTTPRecordStore).
        let stored: Set<String> = keepOriginal ? [options.processor.identifier, ""] : [options.processor.identifier]
        let (targetCache, originalCache) = (self.targetCache, self.originalCache)
        guard options.waitForCache else {
            // Failures of writes not waited for reach the caches' loggers. The record is queued once the last
            // write is done (the entries may be in two caches, each with its own I/O threads).
            let saveRecord: @Sendable () -> Void = {
                guard let record else { return }
                HTTPFreshness.submitSave(
                    record, variants: stored, forKey: key, in: targetCache, originalCache: originalCache,
                    expiration: expiration)
            }
            let left = Locked(writes.count)
            for write in writes {
                write.cache.enqueueWrite(
                    write.data, computedKey: write.computedKey, expiration: expiration,
                    writeOptions: write.writeOptions, forcedExtension: forcedExtension, checksum: write.checksum,
                    done: { _ in
                        guard
                            left.withLock({
                                $0 -= 1
                                return $0 == 0
                            })
                        else { return }
                        saveRecord()
                    })
            }
            if writes.isEmpty { saveRecord() }
            outcome.failure = nil
            return outcome
        }
        if let record, writes.allSatisfy({ $0.cache === targetCache }) {
            // The entries and their record in one disk job, the record after them.
            let writes = writes
            let written = await HTTPFreshness.save(
                record, variants: stored, forKey: key, in: targetCache, originalCache: originalCache,
                expiration: expiration
            ) {
                writes.reduce(nil) { failure, write in
                    let written = write.cache.writeToDisk(
                        write.data, forKey: write.computedKey, expiration: expiration,
                        writeOptions: write.writeOptions, forcedExtension: forcedExtension, checksum: write.checksum)
                    guard case .failure(let error) = written else { return failure }
                    return failure ?? error
                }
            }
            outcome.failure = outcome.failure ?? written
            return outcome
        }
        for write in writes {
            let written = await write.cache.write(
                write.data, computedKey: write.computedKey, expiration: expiration, writeOptions: write.writeOptions,
                forcedExtension: forcedExtension, checksum: write.checksum)
            outcome.failure = outcome.failure ?? written
        }
        if let record {
            await HTTPFreshness.save(
                record, variants: stored, forKey: key, in: targetCache, originalCache: originalCache,
                expiration: expiration)
        }
        return outcome
    }
}

extension ImageRetrieval {
    /// Whether `data` is `other`'s very bytes (the serializer kept the original as it came): then they have its
    /// checksum.
    fileprivate static func isSameBuffer(_ data: Data, _ other: Data?) -> Bool {
        guard let other, data.count == other.count, !data.isEmpty else { return false }
        return data.withUnsafeBytes { mine in other.withUnsafeBytes { mine.baseAddress == $0.baseAddress } }
    }
}

/// A disk write the store step queues: encoded bytes for one cache entry.
private struct PendingWrite: Sendable {
    let cache: ImageCache
    let data: Data
    let computedKey: String
    let writeOptions: Data.WritingOptions
    /// The bytes' CRC-32C, when it was computed already.
    let checksum: UInt32?
}
