import Foundation
import KingfisherLocking

/// The HTTP cache records of one ``ImageCache``: each a small file in its disk directory, under the source's key
/// with an identifier no processor has (so it is named, swept and cleared like the entries it describes), and the
/// recent ones in memory, so a memory hit does not read a file to learn whether it is fresh.
///
/// Records are written after the entries they describe (both atomically), so a crash between the two leaves the
/// old record, whose content tag the new entries do not match: they are then refetched, never served as the old
/// response's.
final class HTTPRecordStore: Sendable {
    /// The processor identifier of record files.
    static let identifier = "kingfisher-linux.http-record"
    /// The extension of record files, so a summary can find them among the entries.
    static let fileExtension = "http"
    /// Records kept in memory.
    static let memoryLimit = 1024

    private let recent = Locked<[String: HTTPCacheRecord]>([:])

    /// The record of `key` in `cache`; `nil` when there is none (or it cannot be read).
    func record(forKey key: String, in cache: ImageCache) async -> HTTPCacheRecord? {
        if let remembered = recent.withLock({ $0[key] }) { return remembered }
        let computed = ImageCache.computedKey(forKey: key, processorIdentifier: Self.identifier)
        let data: Data? = await withCheckedContinuation { continuation in
            cache.ioQueue.async {
                continuation.resume(
                    returning: try? cache.diskStorage.value(forKey: computed, forcedExtension: Self.fileExtension))
            }
        }
        guard let data, let record = try? JSONDecoder().decode(HTTPCacheRecord.self, from: data) else { return nil }
        remember(record, forKey: key)
        return record
    }

    /// The record of `key` if it is in memory, without reading the disk.
    func rememberedRecord(forKey key: String) -> HTTPCacheRecord? {
        recent.withLock { $0[key] }
    }

    /// Stores `record` for `key`: in memory at once, on disk with the cache's queued writes; returns once the
    /// file is written (a failure reaches the cache's logger, as any disk write's).
    func save(
        _ record: HTTPCacheRecord, forKey key: String, in cache: ImageCache, expiration: StorageExpiration?
    ) async {
        remember(record, forKey: key)
        guard let data = try? JSONEncoder().encode(record) else { return }
        let computed = ImageCache.computedKey(forKey: key, processorIdentifier: Self.identifier)
        await withCheckedContinuation { continuation in
            cache.enqueueWrite(
                data, computedKey: computed, expiration: expiration, forcedExtension: Self.fileExtension,
                done: { _ in continuation.resume() })
        }
    }

    /// Forgets the record of `key`, in memory and on disk.
    func remove(forKey key: String, in cache: ImageCache) {
        _ = recent.withLock { $0.removeValue(forKey: key) }
        cache.removeImage(
            forKey: key, processorIdentifier: Self.identifier, forcedExtension: Self.fileExtension, fromMemory: false,
            fromDisk: true, reporting: { _ in })
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
