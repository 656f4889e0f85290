public import Foundation
import Synchronization

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

    /// A stream of the URLs of files each background or explicit sweep removed (expired or over the size limit),
    /// one element per sweep that removed anything. Each call makes an independent stream; it finishes when the
    /// storage is released. Ours: Kingfisher posts `KingfisherDidCleanDiskCache` through `NotificationCenter`.
    public func sweepEvents() -> AsyncStream<[URL]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [URL].self, bufferingPolicy: .bufferingNewest(64))
        let id = state.withLock { state in
            let id = state.nextListener
            state.nextListener += 1
            state.listeners[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.listeners.removeValue(forKey: id) }
        }
        return stream
    }

    /// Removes expired files, then size-exceeding ones, and reports them to ``sweepEvents()``; returns them.
    /// Runs by itself after writes that exceed the size limit and every ``DiskStorage/Config/sweepInterval``.
    @discardableResult
    public func sweep() throws(KingfisherError) -> [URL] {
        let removed = try removeExpiredValues() + removeSizeExceededValues()
        publish(removed)
        return removed
    }

    func publish(_ removed: [URL]) {
        guard !removed.isEmpty else { return }
        let listeners = state.withLock { Array($0.listeners.values) }
        for listener in listeners { listener.yield(removed) }
    }

    /// Counts a finished write; schedules a sweep when the total goes over the limit or was never measured.
    func noteWrite(added: UInt, replaced: UInt) {
        let shouldSweep = state.withLock { state -> Bool in
            state.changeSinceMeasuring += Int(clamping: added) - Int(clamping: replaced)
            if let known = state.knownTotalSize {
                state.knownTotalSize = known - min(known, replaced) + added
            }
            let limit = state.config.sizeLimit
            let over = state.knownTotalSize.map { limit > 0 && $0 > limit } ?? (limit > 0)
            guard over, !state.sweepScheduled else { return false }
            state.sweepScheduled = true
            return true
        }
        if shouldSweep { scheduleSweep() }
    }

    func noteRemoval(_ size: UInt) {
        state.withLock { state in
            state.changeSinceMeasuring -= Int(clamping: size)
            if let known = state.knownTotalSize { state.knownTotalSize = known - min(known, size) }
        }
    }

    /// Runs a sweep on the storage's own serial queue, never on the caller's thread.
    func scheduleSweep() {
        sweepQueue.async { [weak self] in
            guard let self else { return }
            let removed = (try? self.sweep()) ?? []
            // Writes during the sweep may have taken the total over the limit again: sweep once more then.
            let again = self.state.withLock { state -> Bool in
                let limit = state.config.sizeLimit
                guard !removed.isEmpty, limit > 0, let known = state.knownTotalSize, known > limit else {
                    state.sweepScheduled = false
                    return false
                }
                return true
            }
            if again { self.scheduleSweep() }
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

    /// Starts the timer task that schedules sweeps; it needs no run loop and ends with the storage.
    func startSweeper(interval: TimeInterval) {
        guard interval > 0, interval.isFinite else { return }
        let task = Task.detached(priority: .utility) { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(interval))
                guard let self else { return }
                let start = self.state.withLock { state -> Bool in
                    guard !state.sweepScheduled else { return false }
                    state.sweepScheduled = true
                    return true
                }
                if start { self.scheduleSweep() }
            }
        }
        sweeper.withLock { $0 = task }
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
