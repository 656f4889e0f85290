import Foundation
import Logging
import Kingfisher
import KingfisherTestSupport
import Testing

/// What retrievals and prefetches do when the disk cache is damaged or cannot be written: a damaged entry is
/// fetched again, never served; a failed write reaches the caller, the prefetcher's failed list and the log.
@Suite(.timeLimit(.minutes(1)))
struct CacheFaultRetrievalTests {
    /// Cuts the file at `url` in half, keeping its modification date (its expiration).
    private func cutInHalf(_ url: URL) throws {
        let expires = try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as! Date
        let data = try Data(contentsOf: url)
        try data.prefix(data.count / 2).write(to: url)
        try FileManager.default.setAttributes([.modificationDate: expires], ofItemAtPath: url.path)
    }

    /// Makes every later write to `cache` fail: its directory is replaced by a regular file (root ignores
    /// permission bits; see `DiskStorageFaultTests` for read-only and full file systems).
    private func breakWrites(of cache: ImageCache) throws {
        try FileManager.default.removeItem(at: cache.diskStorage.directoryURL)
        try Data("in the way".utf8).write(to: cache.diskStorage.directoryURL)
    }

    @Test func aDamagedEntryIsFetchedAgainAndReplaced() async throws {
        try await withManager { f in
            let jpeg = Fixtures.jpeg(width: 80, height: 60)
            f.server.route("/a.jpg", .ok(jpeg, contentType: "image/jpeg"))
            let url = f.server.url("/a.jpg")
            _ = try await f.manager.retrieveImage(with: .network(url), options: [.waitForCache])
            let file = f.cache.diskStorage.cacheFileURL(forKey: url.cacheKey)
            try cutInHalf(file)
            f.cache.clearMemoryCache()

            let again = try await f.manager.retrieveImage(with: .network(url), options: [.waitForCache])
            #expect(again.cacheType == .none)
            #expect(f.server.hits("/a.jpg") == 2)
            #expect(f.cache.diskStorage.isIntact(forKey: url.cacheKey))
            #expect(try KFCrossPlatformImage(decoding: Data(contentsOf: file)).pixelWidth == 80)
            f.cache.clearMemoryCache()
            #expect(try await f.manager.retrieveImage(with: .network(url)).cacheType == .disk)
        }
    }

    @Test func aFailedWriteIsInTheResultWhenWaitedFor() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png()))
            f.server.route("/b.png", .ok(Fixtures.png()))
            let log = RecordingLog()
            f.cache.logger = log.logger
            try breakWrites(of: f.cache)

            let waited = try await f.manager.retrieveImage(
                with: .network(f.server.url("/a.png")), options: [.waitForCache])
            #expect(waited.image.pixelWidth == 64)  // the image is still the result
            #expect(waited.diskStoreError?.errorCode == 3009)
            // Not waited for: the result cannot know; the log says it
            let unwaited = try await f.manager.retrieveImage(with: .network(f.server.url("/b.png")))
            #expect(unwaited.diskStoreError == nil)
            #expect(await eventually { log.entries.count == 2 })
            let keys = Set(log.entries.compactMap { $0.metadata["kf.key"] })
            #expect(keys == [f.server.url("/a.png").absoluteString, f.server.url("/b.png").absoluteString])
            #expect(log.entries.allSatisfy { $0.level == .warning && $0.metadata["kf.cause"] != nil })
        }
    }

    @Test func aFailedOriginalWriteIsReportedToo() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png()))
            try breakWrites(of: f.cache)
            let result = try await f.manager.retrieveImage(
                with: .network(f.server.url("/a.png")),
                options: [
                    .waitForCache, .cacheOriginalImage,
                    .processor(DownsamplingImageProcessor(size: CGSize(width: 8, height: 8))),
                ])
            #expect(result.diskStoreError != nil)
        }
    }

    @Test func aPrefetchCountsFailedWritesAsFailed() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png()))
            f.server.route("/b.png", .ok(Fixtures.png()))
            try breakWrites(of: f.cache)
            let recorder = PrefetchRecorder()
            let prefetcher = ImagePrefetcher(
                sources: [.network(f.server.url("/a.png")), .network(f.server.url("/b.png"))],
                completionHandler: recorder.completion, manager: f.manager)
            prefetcher.start()
            await recorder.waitForCompletion()
            let final = try #require(recorder.completions.first)
            #expect(final.failed.count == 2)
            #expect(final.completed.isEmpty)
        }
    }

    @Test func aPrefetchLoadsADamagedEntryAgainInsteadOfSkippingIt() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png()))
            f.server.route("/b.png", .ok(Fixtures.png()))
            let urls = [f.server.url("/a.png"), f.server.url("/b.png")]
            for url in urls { _ = try await f.manager.retrieveImage(with: .network(url), options: [.waitForCache]) }
            f.cache.clearMemoryCache()
            try cutInHalf(f.cache.diskStorage.cacheFileURL(forKey: urls[0].cacheKey))

            let recorder = PrefetchRecorder()
            let prefetcher = ImagePrefetcher(
                sources: urls.map { .network($0) }, completionHandler: recorder.completion, manager: f.manager)
            prefetcher.start()
            await recorder.waitForCompletion()
            let final = try #require(recorder.completions.first)
            #expect(final.completed.compactMap(\.url) == [urls[0]])
            #expect(final.skipped.compactMap(\.url) == [urls[1]])
            #expect(f.server.hits("/a.png") == 2)
            #expect(f.server.hits("/b.png") == 1)
            #expect(f.cache.diskStorage.isIntact(forKey: urls[0].cacheKey))
        }
    }
}
