public import Foundation
import KingfisherLocking

extension DiskStorage.Backend {
    /// Removes every expired file; returns their URLs. Also removes the temporary files of abandoned writes (their
    /// process is gone, or they have not changed for five minutes).
    public func removeExpiredValues() throws(KingfisherError) -> [URL] {
        let now = config.now()
        var removed: [URL] = []
        for (url, meta) in try files() where meta.expiresAt <= now {
            try removeFile(at: url)
            removed.append(url)
        }
        return removed + removeAbandonedTemporaries()
    }

    /// When the files add up to more than ``DiskStorage/Config/sizeLimit``, removes the least recently accessed
    /// until they add up to half of it, as Kingfisher does; returns their URLs.
    public func removeSizeExceededValues() throws(KingfisherError) -> [URL] {
        let limit = config.sizeLimit
        guard limit > 0 else { return [] }
        let files = try measuredFiles()
        var total = files.reduce(0) { $0 + $1.meta.size }
        guard total > limit else { return [] }
        var removed: [URL] = []
        for (url, meta) in files.sorted(by: { $0.meta.lastAccess < $1.meta.lastAccess }) {
            guard total > limit / 2 else { break }
            try removeFile(at: url)
            total -= min(total, meta.size)
            removed.append(url)
        }
        return removed
    }

    /// The sum of the files' sizes in bytes (their length, not the blocks they occupy). `0` when the directory
    /// does not exist.
    public func totalSize() throws(KingfisherError) -> UInt {
        try measuredFiles().reduce(0) { $0 + $1.meta.size }
    }

    /// How many files the cache holds, their total size, and how many of them (and how many bytes) have expired;
    /// temporary files of writes (in progress or abandoned) are counted apart. Ours (Kingfisher has no such call):
    /// for tools that report on a cache.
    public func summary() throws(KingfisherError) -> DiskStorage.Summary {
        let now = config.now()
        var summary = DiskStorage.Summary()
        for url in try contents() where CacheTemporaryFile.isTemporary(url.lastPathComponent) {
            guard let meta = CacheFileSystem.meta(atPath: url.path), meta.isRegularFile else { continue }
            summary.temporaryCount += 1
            summary.temporarySize += meta.size
        }
        for (_, meta) in try files() {
            summary.fileCount += 1
            summary.totalSize += meta.size
            if meta.expiresAt <= now {
                summary.expiredCount += 1
                summary.expiredSize += meta.size
            }
        }
        return summary
    }

    /// Counts a finished write (which also proves the directory exists).
    func noteWrite(added: UInt, replaced: UInt) {
        state.withLock { state in
            state.directoryReady = true
            state.changeSinceMeasuring += Int(clamping: added) - Int(clamping: replaced)
            if let known = state.knownTotalSize {
                state.knownTotalSize = known - min(known, replaced) + added
            }
        }
    }

    func noteRemoval(_ size: UInt) {
        state.withLock { state in
            state.changeSinceMeasuring -= Int(clamping: size)
            if let known = state.knownTotalSize { state.knownTotalSize = known - min(known, size) }
        }
    }

    /// Whether the files may add up to more than ``DiskStorage/Config/sizeLimit``, from the running total (no
    /// I/O): `true` when there is a limit and the total was never measured. What ``ImageCache`` asks after a write
    /// to decide on a sweep; the storage itself never trims (``removeSizeExceededValues()`` does, when called).
    var mayExceedSizeLimit: Bool {
        state.withLock { state in
            let limit = state.config.sizeLimit
            guard limit > 0 else { return false }
            return state.knownTotalSize.map { $0 > limit } ?? true
        }
    }

    /// The files, measured so that writes and removals racing with the listing are not lost from the running
    /// total: they are counted since the listing began, and counting one twice only brings a sweep earlier.
    private func measuredFiles() throws(KingfisherError) -> [(url: URL, meta: CacheFileMeta)] {
        state.withLock { $0.changeSinceMeasuring = 0 }
        let files = try files()
        let total = files.reduce(0) { $0 + $1.meta.size }
        state.withLock { state in
            state.knownTotalSize = UInt(max(0, Int(clamping: total) + state.changeSinceMeasuring))
        }
        return files
    }

    /// The directory's entries; empty when the directory does not exist.
    func contents() throws(KingfisherError) -> [URL] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directoryURL.path)
        } catch {
            if CacheFileSystem.meta(atPath: directoryURL.path) == nil { return [] }
            throw .cacheError(reason: .fileEnumeratorCreationFailed(url: directoryURL))
        }
        return names.map { directoryURL.appendingPathComponent($0, isDirectory: false) }
    }

    /// Regular files with their metadata; temporary files of writes are left out.
    private func files() throws(KingfisherError) -> [(url: URL, meta: CacheFileMeta)] {
        var result: [(url: URL, meta: CacheFileMeta)] = []
        for url in try contents() where !CacheTemporaryFile.isTemporary(url.lastPathComponent) {
            // A file removed by another process since the listing is simply skipped.
            guard let meta = CacheFileSystem.meta(atPath: url.path), meta.isRegularFile else { continue }
            result.append((url, meta))
        }
        return result
    }
}
