import Foundation
import KingfisherLocking

/// The HTTP cache records of one ``ImageCache``: each a small file in its disk directory, under the source's key
/// with an identifier no processor has (so it is named, swept and cleared like the entries it describes), and the
/// recent ones in memory, so a memory hit does not read a file to learn whether it is fresh.
///
/// Records are written after the entries they describe (both atomically). A crash between the two leaves a new
/// entry under the old record: it is used while that record is fresh, then revalidated with the old validator,
/// which the origin no longer matches, so it is downloaded again. An older image is never kept as a newer one's.
final class HTTPRecordStore: Sendable {
    /// The processor identifier of record files.
    static let identifier = "kingfisher-linux.http-record"
    /// The extension of record files, so a summary can find them among the entries.
    static let fileExtension = "http"
    /// Records kept in memory.
    static let memoryLimit = 1024

    private let recent = Locked<[String: HTTPCacheRecord]>([:])
    /// One lock per stripe of keys, held while a record is read from its file or changed: a change of one record
    /// (read, changed, written) is then alone among the reads and changes of that record without holding up the
    /// cache's other disk jobs, and a read never puts an older record back in memory after a change. Each counts
    /// the changes made under it (a value with a size: a `Locked<Void>`'s value would share its address with the
    /// next object's, which ThreadSanitizer then sees as raced).
    private let keyLocks = (0..<32).map { _ in Locked(0) }

    /// The record of `key` in `cache`; `nil` when there is none (or it cannot be read). Read on the cache's I/O
    /// threads when it is not in memory.
    func record(forKey key: String, in cache: ImageCache) async -> HTTPCacheRecord? {
        if let remembered = rememberedRecord(forKey: key) { return remembered }
        return await cache.io.perform { self.loadRecord(forKey: key, in: cache) }
    }

    /// The record of `key` if it is in memory, without reading the disk.
    func rememberedRecord(forKey key: String) -> HTTPCacheRecord? {
        recent.withLock { $0[key] }
    }

    /// The record of `key`: from memory, or read from its file and kept in memory. Blocking: runs on the cache's
    /// I/O threads.
    func loadRecord(forKey key: String, in cache: ImageCache) -> HTTPCacheRecord? {
        if let remembered = rememberedRecord(forKey: key) { return remembered }
        return withKeyLock(key) { loadRecordHoldingLock(forKey: key, in: cache) }
    }

    private func loadRecordHoldingLock(forKey key: String, in cache: ImageCache) -> HTTPCacheRecord? {
        if let remembered = rememberedRecord(forKey: key) { return remembered }
        let computed = ImageCache.computedKey(forKey: key, processorIdentifier: Self.identifier)
        guard let data = try? cache.diskStorage.value(forKey: computed, forcedExtension: Self.fileExtension),
            let record = try? JSONDecoder().decode(HTTPCacheRecord.self, from: data)
        else { return nil }
        remember(record, forKey: key)
        return record
    }

    /// Changes the record of `key` in one step (`change` gets the current record, `nil` when there is none, and
    /// leaves the new one, `nil` to keep none), as one exclusive job on the cache's I/O threads: read, changed in
    /// memory and written, after every disk job submitted before it. So concurrent changes of one record never lose
    /// each other's (two variants stored at once are both listed), and a record written after the entries it
    /// describes lands after them. Returns once it is written (a failure reaches the cache's logger, as any disk
    /// write's).
    func update(
        forKey key: String, in cache: ImageCache, expiration: StorageExpiration?,
        _ change: @escaping @Sendable (inout HTTPCacheRecord?) -> Void
    ) async {
        await cache.io.perform(.exclusive) { self.updateNow(forKey: key, in: cache, expiration: expiration, change) }
    }

    /// The step of ``update(forKey:in:expiration:_:)``. Blocking: runs on the cache's I/O threads, alone among the
    /// reads and changes of this record (exclusive, or shared when the caller has its own ordering).
    func updateNow(
        forKey key: String, in cache: ImageCache, expiration: StorageExpiration?,
        _ change: (inout HTTPCacheRecord?) -> Void
    ) {
        withKeyLock(key) { updateHoldingLock(forKey: key, in: cache, expiration: expiration, change) }
    }

    private func updateHoldingLock(
        forKey key: String, in cache: ImageCache, expiration: StorageExpiration?,
        _ change: (inout HTTPCacheRecord?) -> Void
    ) {
        let previous = loadRecordHoldingLock(forKey: key, in: cache)
        var changed = previous
        change(&changed)
        guard let changed else {
            _ = recent.withLock { $0.removeValue(forKey: key) }
            return
        }
        remember(changed, forKey: key)
        // A record revalidated on every use whose 304 changed only its times decides as the one on disk does:
        // rewriting it would cost a file per 304 and change no later decision.
        if let previous, previous.isAlwaysStale, changed.isAlwaysStale, previous.differsOnlyInTimes(from: changed) {
            return
        }
        guard let data = try? JSONEncoder().encode(changed) else { return }
        let computed = ImageCache.computedKey(forKey: key, processorIdentifier: Self.identifier)
        _ = cache.writeToDisk(
            data, forKey: computed, expiration: expiration, writeOptions: [], forcedExtension: Self.fileExtension)
    }

    /// Forgets the record of `key`, in memory and on disk.
    func remove(forKey key: String, in cache: ImageCache) {
        _ = recent.withLock { $0.removeValue(forKey: key) }
        cache.removeImage(
            forKey: key, processorIdentifier: Self.identifier, forcedExtension: Self.fileExtension, fromMemory: false,
            fromDisk: true, reporting: { _ in })
    }

    private func withKeyLock<Result: Sendable>(_ key: String, _ body: () -> Result) -> Result {
        var hasher = Hasher()
        hasher.combine(key)
        let stripe = Int(UInt(bitPattern: hasher.finalize()) % UInt(keyLocks.count))
        return keyLocks[stripe].withLock { held in
            held &+= 1
            return body()
        }
    }

    /// Forgets every record kept in memory (when the disk cache is cleared).
    func forgetAll() {
        recent.withLock { $0.removeAll() }
    }

    private func remember(_ record: HTTPCacheRecord, forKey key: String) {
        recent.withLock { recent in
            if recent.count >= Self.memoryLimit, recent[key] == nil, let any = recent.keys.first {
                recent.removeValue(forKey: any)
            }
            recent[key] = record
        }
    }
}
