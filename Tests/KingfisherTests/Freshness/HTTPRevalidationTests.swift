import Foundation
import Kingfisher
import KingfisherLocking
import KingfisherTestSupport
import Testing

/// Retrievals that follow the HTTP caching headers (``HTTPCachePolicy``) against a loopback origin whose image and
/// headers the tests change: what the origin served (200s and 304s), and what each result says it was.
@Suite struct HTTPRevalidationTests {
    /// An origin for one path: it answers `If-None-Match` with a 304 when the tag still matches.
    final class Origin: Sendable {
        struct State {
            var body = Fixtures.png(width: 40, height: 30)
            var entityTag = #""v1""#
            var cacheControl = "max-age=0"
            var failing = false
            /// 304s wait for ``TestHTTPServer/release(_:)``.
            var holdNotModified = false
            var okCount = 0
            var notModifiedCount = 0
            var conditionalCount = 0
        }

        let state = Locked(State())

        func change(_ body: (inout State) -> Void) { state.withLock { body(&$0) } }
        var ok: Int { state.withLock { $0.okCount } }
        var notModified: Int { state.withLock { $0.notModifiedCount } }
        var conditional: Int { state.withLock { $0.conditionalCount } }

        func respond(_ headers: [(String, String)]) -> TestHTTPServer.Route {
            state.withLock { state in
                let asked = headers.first { $0.0.lowercased() == "if-none-match" }?.1
                if asked != nil { state.conditionalCount += 1 }
                if state.failing { return .status(503) }
                let fields = [("ETag", state.entityTag), ("Cache-Control", state.cacheControl)]
                if asked == state.entityTag {
                    state.notModifiedCount += 1
                    return TestHTTPServer.Route(status: 304, headers: fields, held: state.holdNotModified)
                }
                state.okCount += 1
                return TestHTTPServer.Route(headers: fields + [("Content-Type", "image/png")], body: state.body)
            }
        }
    }

    /// A manager following HTTP caching over a cache whose clock the test moves, and an origin at `/photo.png`.
    private func withOrigin(
        _ body: (ManagerFixture, Origin, URL, TestClock) async throws -> Void
    ) async throws {
        try await withTemporaryDirectory { directory in
            try await withDownloader { server, downloader in
                let clock = TestClock()
                let cache = try makeCache(in: directory, clock: clock)
                let manager = KingfisherManager(downloader: downloader, cache: cache)
                let origin = Origin()
                server.route("/photo.png", responder: { origin.respond($0) })
                manager.httpCachePolicy = .followsResponseHeaders
                let fixture = ManagerFixture(
                    server: server, downloader: downloader, cache: cache, directory: directory, manager: manager)
                try await body(fixture, origin, server.url("/photo.png"), clock)
                _ = try? await cache.calculateDiskStorageSize()
            }
        }
    }

    private let waiting: KingfisherOptionsInfo = [.waitForCache]

    @Test func aFreshEntryIsUsedWithoutARequest() async throws {
        try await withOrigin { f, origin, url, clock in
            origin.change { $0.cacheControl = "max-age=600" }
            let first = try await f.manager.retrieveImage(with: url, options: waiting)
            #expect(first.validation == .fetched && first.cacheType == .none)
            f.cache.clearMemoryCache()
            let second = try await f.manager.retrieveImage(with: url, options: waiting)
            #expect(second.validation == .fresh && second.cacheType == .disk)
            let third = try await f.manager.retrieveImage(with: url)
            #expect(third.validation == .fresh && third.cacheType == .memory)
            #expect(f.server.hits("/photo.png") == 1)
        }
    }

    @Test func aStaleEntryIsRevalidatedAndA304KeepsItWithoutADownload() async throws {
        try await withOrigin { f, origin, url, clock in
            _ = try await f.manager.retrieveImage(with: url, options: waiting)
            // max-age=0: stale at once
            let second = try await f.manager.retrieveImage(with: url, options: waiting)
            #expect(second.validation == .revalidated)
            #expect(second.cacheType == .memory)
            #expect(second.image.pixelWidth == 40)
            #expect(origin.ok == 1 && origin.notModified == 1)
            // The 304 refreshed the record: with a lifetime now, the next retrieval asks nobody
            origin.change { $0.cacheControl = "max-age=600" }
            _ = try await f.manager.retrieveImage(with: url, options: waiting)
            let fourth = try await f.manager.retrieveImage(with: url, options: waiting)
            #expect(fourth.validation == .fresh)
            #expect(origin.ok == 1 && origin.notModified == 2)
        }
    }

    @Test func a304ToARecordRevalidatedEveryTimeWritesNothingUnlessItChangesMoreThanTimes() async throws {
        try await withOrigin { f, origin, url, clock in
            // max-age=0 and no stale windows: every use asks the origin, whatever the record's times
            _ = try await f.manager.retrieveImage(with: url, options: waiting)
            let recordFile = f.cache.diskStorage.cacheFileURL(
                forKey: ImageCache.computedKey(
                    forKey: url.absoluteString, processorIdentifier: "kingfisher-linux.http-record"),
                forcedExtension: "http")
            let written = try #require(fileIdentity(recordFile))
            clock.advance(by: 30)
            f.cache.clearMemoryCache()
            let second = try await f.manager.retrieveImage(with: url, options: waiting)
            #expect(second.validation == .revalidated)
            #expect(fileIdentity(recordFile) == written)
            // A 304 that gives a lifetime is written: another process sees the entry fresh
            origin.change { $0.cacheControl = "max-age=600" }
            _ = try await f.manager.retrieveImage(with: url, options: waiting)
            #expect(fileIdentity(recordFile) != written)
            let cache = try makeCache(in: f.directory, clock: clock)
            #expect(await cache.isFreshByHTTP(forKey: url.absoluteString))
            #expect(origin.notModified == 2)
        }
    }

    /// The file's inode and change time: a rename over it or a rewrite changes them.
    private func fileIdentity(_ url: URL) -> [Int]? {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return nil }
        return [Int(info.st_ino), info.st_ctim.tv_sec, info.st_ctim.tv_nsec]
    }

    @Test func aChangedImageReplacesTheEntryAndEveryVariantMadeFromTheOldOne() async throws {
        try await withOrigin { f, origin, url, clock in
            // Given two variants (and the original) made from a response fresh for ten minutes
            origin.change { $0.cacheControl = "max-age=600" }
            let small = DownsamplingImageProcessor(size: CGSize(width: 20, height: 20))
            let tinted = BlackWhiteProcessor()
            let first = try await f.manager.retrieveImage(
                with: url, options: [.processor(small), .cacheOriginalImage, .waitForCache])
            #expect(first.validation == .fetched)
            // (the second is made from the fresh original)
            let second = try await f.manager.retrieveImage(
                with: url, options: [.processor(tinted), .cacheOriginalImage, .waitForCache])
            #expect(second.validation == .fresh)
            #expect(origin.ok == 1)
            // When the origin's image changes, and the entries have gone stale
            clock.advance(by: 3600)
            origin.change {
                $0.body = Fixtures.png(width: 60, height: 20)
                $0.entityTag = #""v2""#
            }
            // Then the next retrieval of one variant downloads and processes the new image
            let changed = try await f.manager.retrieveImage(
                with: url, options: [.processor(tinted), .cacheOriginalImage, .waitForCache])
            #expect(changed.validation == .refetched)
            #expect(changed.image.pixelWidth == 60)
            // and the other variant, made from the old image, is gone from memory and disk; it is made again from
            // the new original, without a download
            let key = url.cacheKey
            #expect(f.cache.retrieveImageInMemoryCache(forKey: key, options: [.processor(small)]) == nil)
            #expect(!f.cache.isCached(forKey: key, processorIdentifier: small.identifier))
            let other = try await f.manager.retrieveImage(
                with: url, options: [.processor(small), .cacheOriginalImage, .waitForCache])
            #expect(other.image.pixelWidth == 20 && other.image.pixelHeight == 7)
            #expect(origin.ok == 2)
        }
    }

    @Test func noStoreNeverReachesTheDiskAndNoCacheAlwaysAsks() async throws {
        try await withOrigin { f, origin, url, clock in
            origin.change { $0.cacheControl = "no-store" }
            let stored = try await f.manager.retrieveImage(with: url, options: waiting)
            #expect(stored.validation == .fetched)
            #expect(!f.cache.diskStorage.isCached(forKey: url.cacheKey))
            origin.change { $0.cacheControl = "max-age=600, no-cache" }
            f.cache.clearMemoryCache()
            _ = try await f.manager.retrieveImage(with: url, options: waiting)
            #expect(f.cache.diskStorage.isCached(forKey: url.cacheKey))
            for _ in 0..<3 {
                let again = try await f.manager.retrieveImage(with: url, options: waiting)
                #expect(again.validation == .revalidated)
            }
            #expect(origin.notModified == 3)
        }
    }

    @Test func staleIfErrorServesTheStaleEntryWhenTheOriginFails() async throws {
        try await withOrigin { f, origin, url, clock in
            origin.change { $0.cacheControl = "max-age=0, stale-if-error=600" }
            _ = try await f.manager.retrieveImage(with: url, options: waiting)
            origin.change { $0.failing = true }
            let stale = try await f.manager.retrieveImage(with: url, options: waiting)
            #expect(stale.validation == .stale(.originFailed))
            #expect(stale.image.pixelWidth == 40)
            // Without the window, the failure is the result
            origin.change {
                $0.failing = false
                $0.cacheControl = "max-age=0"
            }
            _ = try await f.manager.retrieveImage(with: url, options: waiting)
            origin.change { $0.failing = true }
            await #expect(throws: KingfisherError.self) {
                try await f.manager.retrieveImage(with: url, options: waiting)
            }
        }
    }

    /// Caches the origin's 40 px wide image under `stale-while-revalidate` (stale at once), then gives the origin a
    /// new one, 60 px wide, with another validator.
    /// Makes the origin's answers fresh, then retrieves until the new (60-pixel) image is served or 200 tries
    /// passed (the revalidation stores it in the background); the width served last.
    private func widthServedOnceFresh(
        _ f: ManagerFixture, _ origin: Origin, _ url: URL, clearingMemory: Bool
    ) async throws -> Int {
        origin.change { $0.cacheControl = "max-age=600" }
        var latest = 0
        for _ in 0..<200 where latest != 60 {
            if clearingMemory { f.cache.clearMemoryCache() }
            latest = try await f.manager.retrieveImage(with: url, options: waiting).image.pixelWidth
            if latest != 60 { try await Task.sleep(for: .milliseconds(20)) }
        }
        return latest
    }

    private func cacheAStaleEntryAndChangeTheImage(_ f: ManagerFixture, _ origin: Origin, _ url: URL) async throws {
        origin.change { $0.cacheControl = "max-age=0, stale-while-revalidate=600" }
        _ = try await f.manager.retrieveImage(with: url, options: waiting)
        origin.change {
            $0.body = Fixtures.png(width: 60, height: 20)
            $0.entityTag = #""v2""#
        }
    }

    @Test func staleWhileRevalidateServesAtOnceAndRevalidatesInTheBackground() async throws {
        try await withOrigin { f, origin, url, clock in
            try await cacheAStaleEntryAndChangeTheImage(f, origin, url)
            let stale = try await f.manager.retrieveImage(with: url, options: waiting)
            #expect(stale.validation == .stale(.revalidatingInBackground))
            #expect(stale.image.pixelWidth == 40)
            // The background revalidation fetched the new image and stored it for the next retrievals
            #expect(await eventually(timeout: 30) { origin.ok == 2 })
            #expect(try await widthServedOnceFresh(f, origin, url, clearingMemory: true) == 60)
        }
    }

    @Test func aStaleEntryReadFromDiskIsTheOneServedWhileTheRevalidationReplacesIt() async throws {
        try await withOrigin { f, origin, url, clock in
            try await cacheAStaleEntryAndChangeTheImage(f, origin, url)
            // Given the stale entry on disk only (its read takes longer than the revalidation's first steps)
            f.cache.clearMemoryCache()
            let stale = try await f.manager.retrieveImage(with: url, options: waiting)
            // Then the retrieval serves the entry it found, never the one the revalidation brings
            #expect(stale.validation == .stale(.revalidatingInBackground))
            #expect(stale.image.pixelWidth == 40)
            #expect(await eventually(timeout: 30) { origin.ok == 2 })
            // and what it put in memory does not hide the new image from the next retrievals
            #expect(try await widthServedOnceFresh(f, origin, url, clearingMemory: false) == 60)
        }
    }

    @Test func theDefaultPolicyIgnoresTheHeadersAsKingfisherDoes() async throws {
        try await withOrigin { f, origin, url, clock in
            f.manager.httpCachePolicy = .ignoresResponseHeaders
            origin.change { $0.cacheControl = "no-store, max-age=0" }
            let first = try await f.manager.retrieveImage(with: url, options: waiting)
            let second = try await f.manager.retrieveImage(with: url, options: waiting)
            #expect(first.validation == nil && second.validation == nil)
            #expect(second.cacheType == .memory)
            #expect(f.cache.isCached(forKey: url.cacheKey))
            #expect(f.server.hits("/photo.png") == 1)
            // and a call can ask for it
            f.cache.clearMemoryCache()
            let asked = try await f.manager.retrieveImage(
                with: url, options: [.httpCachePolicy(.followsResponseHeaders), .waitForCache])
            #expect(asked.validation == .refetched)
        }
    }

    @Test func variantsStoredAtTheSameTimeAreAllListedInTheRecord() async throws {
        try await withOrigin { f, origin, url, _ in
            origin.change { $0.cacheControl = "max-age=600" }
            // Given eight processed variants of one source stored at the same time
            let processors = (1...8).map { BlurImageProcessor(blurRadius: CGFloat($0)) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for processor in processors {
                    group.addTask {
                        _ = try await f.manager.retrieveImage(
                            with: url, options: [.processor(processor), .waitForCache])
                    }
                }
                try await group.waitForAll()
            }
            // Then every one is fresh from the disk afterwards: none was lost from the record
            f.cache.clearMemoryCache()
            for processor in processors {
                let again = try await f.manager.retrieveImage(with: url, options: [.processor(processor)])
                #expect(again.validation == .fresh && again.cacheType == .disk, "\(processor.identifier)")
            }
            #expect(origin.ok == 1)
        }
    }

    @Test func aNewVariantOfAStaleOriginalIsMadeFromItAfterA304() async throws {
        try await withOrigin { f, origin, url, _ in
            // Given the original cached with one variant, both stale at once (max-age=0)
            let small = DownsamplingImageProcessor(size: CGSize(width: 20, height: 20))
            _ = try await f.manager.retrieveImage(
                with: url, options: [.processor(small), .cacheOriginalImage, .waitForCache])
            // When another processor asks for the source
            let tinted = try await f.manager.retrieveImage(
                with: url, options: [.processor(BlackWhiteProcessor()), .cacheOriginalImage, .waitForCache])
            // Then the original was revalidated, not downloaded again, and the variant made from it
            #expect(tinted.validation == .revalidated)
            #expect(tinted.image.pixelWidth == 40)
            #expect(origin.ok == 1 && origin.notModified == 1)
        }
    }

    @Test func aStaleRecordWhoseEntryIsGoneIsFetchedWithoutAConditionalRequest() async throws {
        try await withOrigin { f, origin, url, _ in
            _ = try await f.manager.retrieveImage(with: url, options: waiting)
            // The entry is evicted (memory and disk), its record stays
            f.cache.clearMemoryCache()
            try f.cache.diskStorage.remove(forKey: url.cacheKey)
            let again = try await f.manager.retrieveImage(with: url, options: waiting)
            #expect(again.validation == .fetched)
            #expect(again.image.pixelWidth == 40)
            #expect(origin.conditional == 0 && origin.ok == 2)
        }
    }

    @Test func a304WhoseEntryWasEvictedMeanwhileRefetches() async throws {
        try await withOrigin { f, origin, url, _ in
            _ = try await f.manager.retrieveImage(with: url, options: waiting)
            f.cache.clearMemoryCache()
            origin.change { $0.holdNotModified = true }
            let retrieval = Task { try await f.manager.retrieveImage(with: url, options: waiting) }
            // The conditional request is on its way when the entry goes; then its 304 arrives
            await f.server.waitForRequests("/photo.png", count: 2)
            try f.cache.diskStorage.remove(forKey: url.cacheKey)
            f.server.release("/photo.png")
            let result = try await retrieval.value
            #expect(result.validation == .refetched)
            #expect(result.image.pixelWidth == 40)
            #expect(origin.notModified == 1 && origin.ok == 2)
            #expect(f.cache.diskStorage.isCached(forKey: url.cacheKey))
        }
    }

    @Test func aPrefetchSkipsFreshSourcesAndRevalidatesStaleOnes() async throws {
        try await withOrigin { f, origin, url, clock in
            origin.change { $0.cacheControl = "max-age=600" }
            let loaded = try await prefetch(url, with: f.manager)
            #expect(loaded == Counts(skipped: 0, completed: 1))
            // Fresh: skipped without a request
            let fresh = try await prefetch(url, with: f.manager)
            #expect(fresh == Counts(skipped: 1, completed: 0))
            #expect(f.server.hits("/photo.png") == 1)
            // Stale: revalidated (a 304 keeps the entry), not skipped
            clock.advance(by: 3600)
            let stale = try await prefetch(url, with: f.manager)
            #expect(stale == Counts(skipped: 0, completed: 1))
            #expect(origin.conditional == 1 && origin.notModified == 1 && origin.ok == 1)
            // ...and fresh again by the 304
            let refreshed = try await prefetch(url, with: f.manager)
            #expect(refreshed == Counts(skipped: 1, completed: 0))
        }
    }

    struct Counts: Equatable {
        var skipped: Int
        var completed: Int
    }

    /// Prefetches `url` with `manager`; how many sources were skipped and completed.
    private func prefetch(_ url: URL, with manager: KingfisherManager) async throws -> Counts {
        let recorder = PrefetchRecorder()
        let prefetcher = ImagePrefetcher(
            sources: [.network(url)], completionHandler: recorder.completion, manager: manager)
        prefetcher.start()
        await recorder.waitForCompletion()
        let final = try #require(recorder.completions.first)
        return Counts(skipped: final.skipped.count, completed: final.completed.count)
    }

    @Test func a304ToARequestThatWasNotConditionalIsAnErrorAndCachesNothing() async throws {
        try await withManager { f in
            f.server.route("/odd.png", TestHTTPServer.Route(status: 304, headers: [("ETag", #""x""#)]))
            f.manager.httpCachePolicy = .followsResponseHeaders
            let url = f.server.url("/odd.png")
            await #expect(throws: KingfisherError.self) {
                try await f.manager.retrieveImage(with: url, options: [.waitForCache])
            }
            #expect(!f.cache.isCached(forKey: url.cacheKey))
        }
    }
}
