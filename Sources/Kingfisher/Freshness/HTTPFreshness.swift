import Foundation
import KingfisherLocking

/// The cache side of following HTTP caching: making a response's record, and keeping the records and the entries
/// they describe in step.
enum HTTPFreshness {
    /// The record of the response that brought `data`; `nil` when the response says `no-store`. `checksum`: the
    /// bytes' CRC-32C when the caller computed it already.
    static func record(of data: Data, checksum: UInt32? = nil, _ response: ResponseHeaders) -> HTTPCacheRecord? {
        HTTPCacheRecord(
            headers: response.fields, requestTime: response.requestTime, responseTime: response.responseTime,
            contentTag: contentTag(count: data.count, checksum: checksum ?? CacheFileIntegrity.checksum(of: data)))
    }

    /// Names a response body by its length and CRC-32C (the checksum its cache file gets): equal bytes give
    /// equal tags.
    static func contentTag(count: Int, checksum: UInt32) -> String {
        "\(count)-\(String(checksum, radix: 16))"
    }

    /// Saves the record of a new response for `key`, listing `variants` as made from it. When the bytes differ
    /// from the previous record's, the entries made from the old bytes are then removed (memory and disk), so no
    /// processed variant outlives the image it was made from; when they are the same, the old variants stay.
    /// Returns once the record is written and the old entries removed. For a caller whose entries are written
    /// (it waited for them), so the record needs no place in the disk queue's order: a shared job, alone only
    /// among the changes of this record (one record per prefetched image no longer stops the other writes).
    static func save(
        _ record: HTTPCacheRecord, variants: Set<String>, forKey key: String, in cache: ImageCache,
        originalCache: ImageCache, expiration: StorageExpiration?
    ) async {
        _ = await save(
            record, variants: variants, forKey: key, in: cache, originalCache: originalCache, expiration: expiration,
            afterWriting: { nil })
    }

    /// As ``save(_:variants:forKey:in:originalCache:expiration:)``, with the writes of the entries the record
    /// describes (`writeEntries`, blocking, in `cache`'s directory; it returns their first failure) run first in
    /// the same disk job: one trip to the cache's I/O threads for both. Returns the entries' failure.
    static func save(
        _ record: HTTPCacheRecord, variants: Set<String>, forKey key: String, in cache: ImageCache,
        originalCache: ImageCache, expiration: StorageExpiration?,
        afterWriting writeEntries: @escaping @Sendable () -> KingfisherError?
    ) async -> KingfisherError? {
        let (failure, replaced) = await cache.io.perform(.shared) {
            let failure = writeEntries()
            return (failure, saveNow(record, variants: variants, forKey: key, in: cache, expiration: expiration))
        }
        for identifier in replaced {
            await remove(identifier, forKey: key, in: identifier.isEmpty ? originalCache : cache)
        }
        return failure
    }

    /// As ``save(_:variants:forKey:in:originalCache:expiration:)``, for a store nobody waits for: queued on the
    /// cache's I/O threads behind every disk job submitted before it (the entries it describes), the old entries'
    /// removals queued after it.
    static func submitSave(
        _ record: HTTPCacheRecord, variants: Set<String>, forKey key: String, in cache: ImageCache,
        originalCache: ImageCache, expiration: StorageExpiration?
    ) {
        cache.io.submit(.exclusive) {
            let replaced = saveNow(record, variants: variants, forKey: key, in: cache, expiration: expiration)
            for identifier in replaced {
                (identifier.isEmpty ? originalCache : cache).removeImage(
                    forKey: key, processorIdentifier: identifier, forcedExtension: nil, fromMemory: true,
                    fromDisk: true, reporting: { _ in })
            }
        }
    }

    /// The record written; the variants of an older image it replaced. Blocking: runs on the cache's I/O threads.
    private static func saveNow(
        _ record: HTTPCacheRecord, variants: Set<String>, forKey key: String, in cache: ImageCache,
        expiration: StorageExpiration?
    ) -> Set<String> {
        var replaced: Set<String> = []
        cache.httpRecords.updateNow(forKey: key, in: cache, expiration: expiration) { current in
            var new = record
            new.variants = variants
            if let current, current.contentTag == record.contentTag {
                new.variants.formUnion(current.variants)
            } else if let current {
                replaced = current.variants.subtracting(variants)
            }
            current = new
        }
        return replaced
    }

    /// Adds a variant made again from a fresh cached original to the record of `key`.
    static func addVariant(_ identifier: String, forKey key: String, in cache: ImageCache) async {
        await cache.httpRecords.update(forKey: key, in: cache, expiration: nil) { current in
            current?.variants.insert(identifier)
        }
    }

    /// After a `304` to a revalidation made with `revalidated`: the current record of `key` refreshed with the
    /// 304's fields, when it still describes the same bytes (another retrieval may have replaced it meanwhile);
    /// removed when the 304 says `no-store`.
    static func refresh(
        _ revalidated: HTTPCacheRecord, forKey key: String, with response: ResponseHeaders, in cache: ImageCache,
        expiration: StorageExpiration?
    ) async {
        let removed = Locked(false)
        // Parsed here, not in the store's lock.
        let update = RevalidationUpdate(
            headers: response.fields, requestTime: response.requestTime, responseTime: response.responseTime)
        await cache.httpRecords.update(forKey: key, in: cache, expiration: expiration) { current in
            guard let record = current, record.contentTag == revalidated.contentTag else { return }
            current = record.refreshed(by: update)
            if current == nil { removed.withLock { $0 = true } }
        }
        if removed.withLock({ $0 }) { cache.httpRecords.remove(forKey: key, in: cache) }
    }

    /// Removes the record of `key` and every entry it lists (a `no-store` response replaced them).
    static func removeEverything(forKey key: String, in cache: ImageCache, originalCache: ImageCache) async {
        guard let record = await cache.httpRecords.record(forKey: key, in: cache) else { return }
        for identifier in record.variants {
            await remove(identifier, forKey: key, in: identifier.isEmpty ? originalCache : cache)
        }
        cache.httpRecords.remove(forKey: key, in: cache)
    }

    /// Removes one entry from memory and disk; returns once the file is gone.
    private static func remove(_ identifier: String, forKey key: String, in cache: ImageCache) async {
        _ = await cache.removal(forKey: key, processorIdentifier: identifier, forcedExtension: nil)
    }
}
