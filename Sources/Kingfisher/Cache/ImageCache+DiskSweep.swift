public import Foundation
import KingfisherLocking
import Logging

extension Notification.Name {
    /// Posted on `NotificationCenter.default` after a disk sweep of an ``ImageCache`` removed expired or
    /// size-exceeding files; `object` is the cache, and `userInfo[KingfisherDiskCacheCleanedHashKey]` holds the
    /// removed files' names (`[String]`, as ``ImageCache/hash(forKey:processorIdentifier:forcedExtension:)`` gives).
    ///
    /// - Note: Kingfisher posts it on the main queue after ``ImageCache/cleanExpiredDiskCache(completion:)``.
    ///   Here it is posted synchronously on the thread that swept (no main run loop is needed), also after the
    ///   sweeps that follow writes over the size limit and the periodic ones; observers must not block.
    public static let KingfisherDidCleanDiskCache = Notification.Name(
        "com.onevcat.Kingfisher.KingfisherDidCleanDiskCache")
}

/// The `userInfo` key of ``Foundation/Notification/Name/KingfisherDidCleanDiskCache`` under which the removed files'
/// names (`[String]`) are.
public let KingfisherDiskCacheCleanedHashKey = "com.onevcat.Kingfisher.cleanedHash"

/// An ``ImageCache``'s automatic disk cleaning: a sweep after a write takes the disk over its size limit and one
/// every ``DiskStorage/Config/sweepInterval`` (Kingfisher cleans on app lifecycle notifications, which Linux does
/// not have), and the listeners of ``ImageCache/diskCacheCleanedEvents()``.
final class DiskSweeper: Sendable {
    private struct State {
        var scheduled = false
        var listeners: [UInt64: AsyncStream<[String]>.Continuation] = [:]
        var nextListener: UInt64 = 0
        var timer: (work: PeriodicWork, job: Int?)?
    }

    private let state = Locked(State())

    deinit {
        let timer = state.withLock { state in
            for listener in state.listeners.values { listener.finish() }
            return state.timer
        }
        timer?.work.cancel(timer?.job)
    }

    /// Calls `tick` every `interval` seconds (a job of `work`, its cache's periodic upkeep) until it returns
    /// `false` or the sweeper goes away.
    func startTimer(on work: PeriodicWork, interval: TimeInterval, tick: @escaping @Sendable () -> Bool) {
        let job = work.every(interval, tick)
        state.withLock { $0.timer = (work, job) }
    }

    /// The periodic sweep's job in its cache's periodic work; `nil` without a sweep interval.
    var timerJob: Int? { state.withLock { $0.timer?.job } }

    /// Marks a sweep as scheduled; `false` when one is scheduled already.
    func claim() -> Bool {
        state.withLock { state in
            guard !state.scheduled else { return false }
            state.scheduled = true
            return true
        }
    }

    func release() {
        state.withLock { $0.scheduled = false }
    }

    func addListener() -> AsyncStream<[String]> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: [String].self, bufferingPolicy: .bufferingNewest(64))
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

    func yield(_ hashes: [String]) {
        let listeners = state.withLock { Array($0.listeners.values) }
        for listener in listeners { listener.yield(hashes) }
    }
}

extension ImageCache {
    /// Removes expired files, then size-exceeding ones, and tells ``diskCacheCleanedEvents()`` listeners and
    /// `NotificationCenter.default` what went. Blocking: call on ``io``.
    @discardableResult
    func sweepDisk() -> [URL] {
        var removed: [URL] = []
        do {
            removed += try diskStorage.removeExpiredValues()
            removed += try diskStorage.removeSizeExceededValues()
        } catch {
            logger?.warning(
                "A disk cache sweep failed", metadata: ["kf.error": "\(error.errorDescription ?? "\(error)")"])
        }
        guard !removed.isEmpty else { return removed }
        let hashes = removed.map(\.lastPathComponent)
        NotificationCenter.default.post(
            name: .KingfisherDidCleanDiskCache, object: self, userInfo: [KingfisherDiskCacheCleanedHashKey: hashes])
        sweeper.yield(hashes)
        return removed
    }

    /// Schedules one sweep on the disk executor (a shared job: lookups and writes go on beside it, the storage is
    /// safe to share) unless one is scheduled already. Sweeps again when writes during the sweep took the disk over
    /// its limit again.
    func scheduleDiskSweep() {
        guard sweeper.claim() else { return }
        io.submit { [weak self] in
            guard let self else { return }
            let removed = self.sweepDisk()
            self.sweeper.release()
            if !removed.isEmpty, self.diskStorage.mayExceedSizeLimit { self.scheduleDiskSweep() }
        }
    }

    /// After a disk write: a sweep when the total may be over the size limit.
    func sweepIfOverSizeLimit() {
        if diskStorage.mayExceedSizeLimit { scheduleDiskSweep() }
    }

    /// The cache's periodic upkeep: its memory storage's (see ``MemoryStorage/Backend/periodicWork``), which runs
    /// the memory storage's expiry cleaning and the cache's periodic disk sweeps, and no other cache's.
    var periodicWork: PeriodicWork { memoryStorage.periodicWork }

    /// Starts the periodic sweep of ``DiskStorage/Config/sweepInterval`` on ``periodicWork``; it holds the cache
    /// weakly.
    func startPeriodicSweeps() {
        sweeper.startTimer(on: periodicWork, interval: diskStorage.config.sweepInterval) { [weak self] in
            guard let self else { return false }
            self.scheduleDiskSweep()
            return true
        }
    }
}
