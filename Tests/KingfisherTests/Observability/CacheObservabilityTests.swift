import Foundation
import Kingfisher
import KingfisherTestSupport
import Logging
import MetricsTestKit
import Testing

/// What the cache and the manager count and log: hits and misses per tier, each retrieval's end, failed disk writes
/// at `warning`, and nothing at all when no logger was given.
@Suite(.timeLimit(.minutes(1)))
struct CacheObservabilityTests {
    @Test func hitsAndMissesAreCountedPerTierOncePerRetrieval() async throws {
        try await withTestMetrics { metrics in
            try await withManager { f in
                f.server.route("/a.png", .ok(Fixtures.png(), contentType: "image/png"))
                let source = Source.network(f.server.url("/a.png"))
                let cache = ("cache", f.cache.diskStorage.config.name)
                func count(_ label: String, _ tier: String) -> Int64 {
                    metrics.total(label, [cache, ("tier", tier)])
                }

                let fetched = try await f.manager.retrieveImage(with: source, options: [.waitForCache])
                #expect(fetched.cacheType == .none)
                #expect(count("kingfisher_cache_misses_total", "memory") == 1)
                #expect(count("kingfisher_cache_misses_total", "disk") == 1)
                #expect(count("kingfisher_cache_hits_total", "memory") == 0)

                // The manager's fast path: a memory hit, counted once
                let inMemory = try await f.manager.retrieveImage(with: source)
                #expect(inMemory.cacheType == .memory)
                #expect(count("kingfisher_cache_hits_total", "memory") == 1)
                #expect(count("kingfisher_cache_misses_total", "memory") == 1)

                f.cache.clearMemoryCache()
                let onDisk = try await f.manager.retrieveImage(with: source)
                #expect(onDisk.cacheType == .disk)
                #expect(count("kingfisher_cache_misses_total", "memory") == 2)
                #expect(count("kingfisher_cache_hits_total", "disk") == 1)
                #expect(count("kingfisher_cache_misses_total", "disk") == 1)
                #expect(metrics.recordedCount("kingfisher_processing_duration_seconds", [("stage", "disk")]) == 1)
                #expect(metrics.recordedCount("kingfisher_processing_duration_seconds", [("stage", "encode")]) == 1)
                #expect(f.server.hits("/a.png") == 1)
                // The workers' depth went up as work entered it and back down as it left
                let depth = try metrics.expectMeter("kingfisher_decode_queue_depth")
                #expect(depth.values.contains { $0 >= 1 })
                #expect(depth.lastValue == 0)
            }
        }
    }

    @Test func providerAndOriginalProcessingAreTimedUnderTheirStages() async throws {
        try await withTestMetrics { metrics in
            try await withManager { f in
                let provider = RawImageDataProvider(data: Fixtures.png(), cacheKey: "provided")
                let processor = DownsamplingImageProcessor(size: CGSize(width: 8, height: 8))
                _ = try await f.manager.retrieveImage(
                    with: .provider(provider), options: [.waitForCache, .cacheOriginalImage])
                #expect(metrics.recordedCount("kingfisher_processing_duration_seconds", [("stage", "provider")]) == 1)
                // The original is on disk under the plain key: another processor processes it again, no provider run
                _ = try await f.manager.retrieveImage(with: .provider(provider), options: [.processor(processor)])
                #expect(metrics.recordedCount("kingfisher_processing_duration_seconds", [("stage", "original")]) == 1)
                #expect(metrics.recordedCount("kingfisher_processing_duration_seconds", [("stage", "provider")]) == 1)
            }
        }
    }

    @Test func concurrentDiskLookupsOfOneEntryAreCountedAsCoalesced() async throws {
        try await withTestMetrics { metrics in
            try await withTemporaryDirectory { directory in
                let cache = try makeCache(in: directory)
                try await cache.store(try KFCrossPlatformImage(decoding: Fixtures.png()), forKey: "k")
                cache.clearMemoryCache()
                let lookups = 20
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<lookups {
                        group.addTask { _ = try await cache.retrieveImageInDiskCache(forKey: "k") }
                    }
                    try await group.waitForAll()
                }
                let name = ("cache", cache.diskStorage.config.name)
                #expect(metrics.total("kingfisher_cache_hits_total", [name, ("tier", "disk")]) == Int64(lookups))
                let reads = metrics.recordedCount("kingfisher_processing_duration_seconds", [("stage", "disk")])
                let coalesced = metrics.total("kingfisher_disk_reads_coalesced_total", [name])
                // Every lookup either read and decoded the file or joined a read in progress
                #expect(Int64(reads) + coalesced == Int64(lookups))
            }
        }
    }

    @Test func aRetrievalLogsItsEndToTheCallsLoggerElseTheManagers() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png(), contentType: "image/png"))
            let managerLog = RecordingLog()
            f.manager.logger = managerLog.logger
            let source = Source.network(f.server.url("/a.png"))
            _ = try await f.manager.retrieveImage(with: source, options: [.waitForCache])
            let fetched = try #require(managerLog.entries("Retrieved an image").first)
            #expect(fetched.level == .debug)
            #expect(fetched.metadata["kf.key"] == source.cacheKey)
            #expect(fetched.metadata["kf.tier"] == "none")
            // The call's logger gets the download too (the downloader has none); the manager's gets nothing
            let callLog = RecordingLog()
            f.cache.clearMemoryCache()
            _ = try await f.manager.retrieveImage(with: source, options: [.logger(callLog.logger)])
            #expect(callLog.entries("Retrieved an image").first?.metadata["kf.tier"] == "disk")
            #expect(callLog.entries("Disk cache hit").count == 1)
            #expect(managerLog.entries.count == 1)
            // No route: the server answers 404 and the retrieval fails
            _ = await f.manager.callbackResult(.network(f.server.url("/b.png")), options: [.logger(callLog.logger)])
            #expect(callLog.entries("A retrieval failed").count == 1)
            #expect(callLog.entries("A download failed").first?.metadata["kf.status"] == "404")
        }
    }

    @Test func aFailedDiskWriteIsLoggedAtWarningAndCounted() async throws {
        try await withTestMetrics { metrics in
            try await withManager { f in
                f.server.route("/a.png", .ok(Fixtures.png(), contentType: "image/png"))
                let log = RecordingLog()
                f.cache.logger = log.logger
                // Every write fails: the cache's directory is a regular file now (root ignores permission bits)
                try FileManager.default.removeItem(at: f.cache.diskStorage.directoryURL)
                try Data("in the way".utf8).write(to: f.cache.diskStorage.directoryURL)

                let result = try await f.manager.retrieveImage(with: .network(f.server.url("/a.png")))
                #expect(result.diskStoreError == nil)  // not waited for: only the log and the metrics know
                #expect(await eventually { !log.entries("A disk cache write failed").isEmpty })
                let entry = try #require(log.entries("A disk cache write failed").first)
                #expect(entry.level == .warning)
                #expect(entry.metadata["kf.key"] == f.server.url("/a.png").absoluteString)
                #expect(entry.metadata["kf.cache"] == f.cache.diskStorage.config.name)
                #expect(entry.metadata["kf.cause"] != nil)
                let name = ("cache", f.cache.diskStorage.config.name)
                #expect(metrics.total("kingfisher_disk_write_failures_total", [name]) == 1)
            }
        }
    }

    @Test(.enabled(if: TmpfsMount.isAvailable, "needs root and tmpfs mounts"))
    func aWriteToAReadOnlyCacheIsLoggedAtWarning() async throws {
        try await withTemporaryDirectory { directory in
            let mount = try TmpfsMount(at: directory.appendingPathComponent("ro"), options: "size=256k")
            defer { mount.unmount() }
            let cache = try makeCache(in: mount.url)
            try mount.remount(options: "remount,ro")
            let log = RecordingLog()
            cache.logger = log.logger
            let image = try KFCrossPlatformImage(decoding: Fixtures.png())
            let stored = await withCheckedContinuation { continuation in
                cache.store(image, forKey: "k") { continuation.resume(returning: $0) }
            }
            #expect(throws: KingfisherError.self) { try stored.diskCacheResult.get() }
            let entry = try #require(log.entries("A disk cache write failed").first)
            #expect(entry.level == .warning)
            #expect(entry.metadata["kf.key"] == "k")
        }
    }

    @Test func nothingIsLoggedWhenNoLoggerIsGiven() async throws {
        let global = GlobalLogRecorder.log
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png(), contentType: "image/png"))
            f.server.route("/missing.png", .status(404))
            // A download, a failed download, a failed disk write, a disk read: each would log with a logger
            _ = try await f.manager.retrieveImage(with: .network(f.server.url("/a.png")), options: [.waitForCache])
            _ = await f.manager.callbackResult(.network(f.server.url("/missing.png")))
            f.cache.clearMemoryCache()
            _ = try await f.manager.retrieveImage(with: .network(f.server.url("/a.png")))
            try FileManager.default.removeItem(at: f.cache.diskStorage.directoryURL)
            try Data("in the way".utf8).write(to: f.cache.diskStorage.directoryURL)
            let failed = try await f.manager.retrieveImage(
                with: .network(f.server.url("/a.png")), options: [.forceRefresh, .waitForCache])
            #expect(failed.diskStoreError != nil)  // the write did fail
        }
        #expect(global.entries.isEmpty, "\(global.entries.map(\.message))")
    }
}
