import Foundation
import KingfisherLocking
import XCTest

@testable import Kingfisher

/// The cache's disk cleaning as Kingfisher users see it: `KingfisherDidCleanDiskCache` with the removed hashes, the
/// automatic sweeps that replace Kingfisher's app-lifecycle cleaning, and the storage leaving the size limit to them.
final class ImageCacheDiskCleaningTests: XCTestCase {
    /// Collects `KingfisherDidCleanDiskCache` notifications of one cache.
    private final class NotificationRecorder {
        typealias Posted = (sameCache: Bool, hashes: [String]?)
        private final class Box: Sendable {
            let posted = Locked<[Posted]>([])
        }
        private let box = Box()
        private var token: (any NSObjectProtocol)?

        init(for cache: ImageCache) {
            let box = self.box
            token = NotificationCenter.default.addObserver(
                forName: .KingfisherDidCleanDiskCache, object: cache, queue: nil
            ) { [weak cache] notification in
                let hashes = notification.userInfo?[KingfisherDiskCacheCleanedHashKey] as? [String]
                let same = cache != nil && (notification.object as? ImageCache) === cache
                box.posted.withLock { $0.append((same, hashes)) }
            }
        }

        var notifications: [Posted] { box.posted.withLock { $0 } }

        func stop() {
            if let token { NotificationCenter.default.removeObserver(token) }
        }
    }

    func testCleaningExpiredFilesPostsTheirHashesWithTheCacheAsObject() async throws {
        try await withTemporaryDirectory { directory in
            // Given one expired and one live file
            let clock = TestClock()
            let cache = try makeCache(in: directory, clock: clock)
            let recorder = NotificationRecorder(for: cache)
            defer { recorder.stop() }
            try await cache.storeToDisk(Fixtures.png(), forKey: "old", expiration: .seconds(1))
            try await cache.storeToDisk(Fixtures.png(), forKey: "new", expiration: .seconds(100))
            clock.advance(by: 2)
            // When the expired disk cache is cleaned
            await cache.cleanExpiredDiskCache()
            // Then one notification names the removed file, with the cache as its object
            let notifications = recorder.notifications
            XCTAssertEqual(notifications.count, 1)
            XCTAssertEqual(notifications.first?.sameCache, true)
            XCTAssertEqual(notifications.first?.hashes, [cache.hash(forKey: "old")])
            XCTAssertTrue(cache.isCached(forKey: "new"))
        }
    }

    func testACleaningThatRemovesNothingPostsNothing() async throws {
        try await withTemporaryDirectory { directory in
            let cache = try makeCache(in: directory)
            let recorder = NotificationRecorder(for: cache)
            defer { recorder.stop() }
            try await cache.storeToDisk(Fixtures.png(), forKey: "live")
            await cache.cleanExpiredDiskCache()
            XCTAssertTrue(recorder.notifications.isEmpty)
        }
    }

    func testAWriteOverTheSizeLimitSweepsThroughTheCacheAndNotifies() async throws {
        try await withTemporaryDirectory { directory in
            // Given a cache whose disk holds at most 1000 bytes, and a listener for its sweeps
            let cache = try makeCache(in: directory, sizeLimit: 1000)
            let recorder = NotificationRecorder(for: cache)
            defer { recorder.stop() }
            let events = cache.diskCacheCleanedEvents()
            // When 12 files of 100 bytes are written through the cache (nobody asks for a sweep)
            for index in 0..<12 { try await cache.storeToDisk(Data(count: 100), forKey: "\(index)") }
            // Then the cache sweeps by itself down to half the limit (plus what was written after it)
            var iterator = events.makeAsyncIterator()
            let removed = await iterator.next() ?? []
            XCTAssertGreaterThanOrEqual(removed.count, 6)
            XCTAssertLessThanOrEqual(try cache.diskStorage.totalSize(), 600)
            // And the same sweep was announced through NotificationCenter
            let announced = recorder.notifications.first?.hashes ?? []
            XCTAssertEqual(announced, removed)
        }
    }

    func testTheCacheTimerSweepsExpiredFiles() async throws {
        try await withTemporaryDirectory { directory in
            // Given a cache over a storage with a two-minute sweep interval, its periodic work on a manual clock
            let clock = TestClock()
            var config = diskConfig(directory, clock: clock)
            config.sweepInterval = 120
            let disk = try DiskStorage.Backend<Data>(config: config)
            let work = PeriodicWork(timing: .manual)
            let cache = ImageCache(
                memoryStorage: MemoryStorage.Backend(
                    config: MemoryStorage.Config(totalCostLimit: 0, cleanInterval: 0), periodicWork: work),
                diskStorage: disk)
            let events = cache.diskCacheCleanedEvents()
            try await cache.storeToDisk(Data([1]), forKey: "a", expiration: .seconds(5))
            // When the file expires, and the sweep's turn comes
            clock.advance(by: 6)
            work.advance(by: .seconds(120))
            // Then the periodic sweep removes it
            var iterator = events.makeAsyncIterator()
            let removed = await iterator.next()
            XCTAssertEqual(removed, [cache.hash(forKey: "a")])
            XCTAssertTrue(cacheFiles(in: disk.directoryURL).isEmpty)
        }
    }

    func testAStorageWithoutACacheIsNotSweptByATimer() async throws {
        try await withTemporaryDirectory { directory in
            // Given a storage whose configuration asks for 20 ms sweeps, in a cache whose periodic work is on a
            // manual clock
            let clock = TestClock()
            var config = diskConfig(directory, clock: clock)
            config.sweepInterval = 0.02
            let disk = try DiskStorage.Backend<Data>(config: config)
            let work = PeriodicWork(timing: .manual)
            let log = HookLog<PeriodicWork.Event>()
            work.observer = log.observer
            var cache: ImageCache? = ImageCache(
                memoryStorage: MemoryStorage.Backend(
                    config: MemoryStorage.Config(totalCostLimit: 0, cleanInterval: 0), periodicWork: work),
                diskStorage: disk)
            // The timed sweep is the cache's job, on the cache's periodic work (a storage has no timer of its own:
            // the library's only timed upkeep is a PeriodicWork, and the storage holds none)
            let sweep = try XCTUnwrap(cache?.sweeper.timerJob)
            XCTAssertEqual(log.events, [.scheduled(job: sweep, interval: .milliseconds(20))])
            // When the cache goes, its sweep goes with it
            cache = nil
            XCTAssertEqual(log.events.last, .stopped(job: sweep))
            XCTAssertEqual(work.jobCount, 0)
            // Then the bare storage keeps its expired file however far the clock moves: nobody sweeps it
            try disk.store(value: Data([1]), forKey: "a", expiration: .seconds(5))
            clock.advance(by: 6)
            work.advance(by: .seconds(10))
            XCTAssertFalse(log.events.contains { if case .due = $0 { true } else { false } })
            XCTAssertEqual(cacheFiles(in: disk.directoryURL).count, 1)
            XCTAssertEqual(try disk.removeExpiredValues().count, 1)
        }
    }
}
