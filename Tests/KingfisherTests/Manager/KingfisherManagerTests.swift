import Foundation
import Kingfisher
import KingfisherTestSupport
import KingfisherLocking
import Testing

@Suite(.timeLimit(.minutes(1)))
struct KingfisherManagerTests {
    @Test func loadsThenServesFromMemoryThenFromDisk() async throws {
        try await withManager { f in
            // Given a PNG on the server
            let png = Fixtures.png(width: 64, height: 48)
            f.server.route("/a.png", .ok(png, contentType: "image/png"))
            let url = f.server.url("/a.png")
            // When it is retrieved the first time (waiting for the disk write)
            let first = try await f.manager.retrieveImage(with: url, options: [.waitForCache])
            // Then it was downloaded and is now in both layers
            #expect(first.cacheType == .none)
            #expect(first.image.kf.size == CGSize(width: 64, height: 48))
            #expect(first.data() == png)
            #expect(first.metrics?.httpStatusCode == 200)
            #expect(f.server.hits("/a.png") == 1)
            #expect(f.cache.imageCachedType(forKey: url.cacheKey) == .memory)
            #expect(f.cache.diskStorage.isCached(forKey: url.cacheKey))
            // When it is retrieved again
            let second = try await f.manager.retrieveImage(with: url)
            #expect(second.cacheType == .memory)
            // And after the memory cache is emptied
            f.cache.clearMemoryCache()
            #expect(f.cache.imageCachedType(forKey: url.cacheKey) == .disk)
            let third = try await f.manager.retrieveImage(with: url)
            // Then it comes from disk, is back in memory, and the server was asked once only
            #expect(third.cacheType == .disk)
            #expect(third.image.kf.size == CGSize(width: 64, height: 48))
            #expect(f.cache.imageCachedType(forKey: url.cacheKey) == .memory)
            #expect(f.server.hits("/a.png") == 1)
        }
    }

    @Test func callbackAPIReturnsNilForAMemoryHitAndATaskOtherwise() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png()))
            let url = f.server.url("/a.png")
            // A miss returns a task and calls back once with a download
            let collector = RetrievalCollector()
            let task = f.manager.retrieveImage(with: url, completionHandler: collector.handler)
            #expect(task != nil)
            await collector.wait(for: 1)
            #expect((try? collector.results[0].get())?.cacheType == CacheType.none)
            // A memory hit calls back before returning, and returns nil
            let hit = RetrievalCollector()
            let noTask = f.manager.retrieveImage(with: url, completionHandler: hit.handler)
            #expect(noTask == nil)
            #expect(hit.results.count == 1)
            #expect((try? hit.results[0].get())?.cacheType == .memory)
            #expect(f.server.hits("/a.png") == 1)
        }
    }

    @Test func resourceKeepsItsOwnCacheKeyAndSource() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png()))
            let resource = KF.ImageResource(downloadURL: f.server.url("/a.png"), cacheKey: "custom-key")
            let result = try await f.manager.retrieveImage(with: resource, options: [.waitForCache])
            #expect(result.source.cacheKey == "custom-key")
            #expect(result.originalSource.url == f.server.url("/a.png"))
            #expect(f.cache.isCached(forKey: "custom-key"))
            #expect(!f.cache.isCached(forKey: f.server.url("/a.png").cacheKey))
        }
    }

    @Test func downloadErrorsReachTheCallerAndCacheNothing() async throws {
        try await withManager { f in
            f.server.route("/missing.png", .status(404))
            let url = f.server.url("/missing.png")
            await #expect {
                try await f.manager.retrieveImage(with: url, options: [.waitForCache])
            } throws: { error in
                (error as? KingfisherError)?.isInvalidResponseStatusCode(404) == true
            }
            #expect(!f.cache.isCached(forKey: url.cacheKey))
            #expect(cacheFiles(in: f.cache.diskStorage.directoryURL).isEmpty)
        }
    }

    @Test func undecodableDataFailsWithTheDecodersReason() async throws {
        try await withManager { f in
            f.server.route("/junk", .ok(garbageBytes))
            let url = f.server.url("/junk")
            let result = await f.manager.callbackResult(.network(url), options: [.waitForCache])
            // As in Kingfisher: processingFailed, with the decoder's reason underneath
            guard case .processorError(reason: .processingFailed) = result.failure,
                case .unsupportedImageFormat? = result.failure?.underlyingReason
            else {
                Issue.record("expected processingFailed over unsupportedImageFormat, got \(result)")
                return
            }
            #expect(!f.cache.isCached(forKey: url.cacheKey))
        }
    }

    @Test func defaultOptionsApplyAndPassedOptionsWin() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png(width: 64, height: 48)))
            let url = f.server.url("/a.png")
            let small = ResizingImageProcessor(referenceSize: CGSize(width: 8, height: 6))
            let medium = ResizingImageProcessor(referenceSize: CGSize(width: 16, height: 12))
            // Given a default processor
            f.manager.defaultOptions = [.processor(small)]
            let defaulted = try await f.manager.retrieveImage(with: url)
            #expect(defaulted.image.kf.size == CGSize(width: 8, height: 6))
            #expect(f.cache.isCached(forKey: url.cacheKey, processorIdentifier: small.identifier))
            // When a retrieval passes its own, it wins
            let overridden = try await f.manager.retrieveImage(with: url, options: [.processor(medium)])
            #expect(overridden.image.kf.size == CGSize(width: 16, height: 12))
            #expect(f.cache.isCached(forKey: url.cacheKey, processorIdentifier: medium.identifier))
        }
    }

    @Test func theOriginalCacheFollowsTheCallsTargetCacheOverADefaultOne() async throws {
        try await withManager { f in
            // Given a default target cache and a call that names another one, with no original cache named
            f.server.route("/a.png", .ok(Fixtures.png(width: 64, height: 48)))
            let url = f.server.url("/a.png")
            let other = try makeCache(in: f.directory.appendingPathComponent("other", isDirectory: true))
            let processor = ResizingImageProcessor(referenceSize: CGSize(width: 8, height: 6))
            f.manager.defaultOptions = [.targetCache(f.cache), .cacheOriginalImage]
            // When an image is retrieved with a processor
            _ = try await f.manager.retrieveImage(
                with: url, options: [.targetCache(other), .processor(processor), .waitForCache])
            // Then the processed image and the original both go to the call's cache, as when the lists are parsed
            // joined
            #expect(other.isCached(forKey: url.cacheKey, processorIdentifier: processor.identifier))
            #expect(other.isCached(forKey: url.cacheKey))
            #expect(!f.cache.isCached(forKey: url.cacheKey))
            // And clearing the default options leaves calls without options on the manager's cache
            f.manager.defaultOptions = []
            #expect(f.manager.defaultOptions.isEmpty)
            _ = try await f.manager.retrieveImage(with: url, options: [.waitForCache])
            #expect(f.cache.isCached(forKey: url.cacheKey))
        }
    }

    @Test func completionRunsOnTheCallbackQueue() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png()))
            let queue = DispatchQueue(label: "manager-test-callbacks")
            let key = DispatchSpecificKey<Int>()
            queue.setSpecific(key: key, value: 42)
            let onQueue = await withCheckedContinuation { continuation in
                f.manager.retrieveImage(
                    with: f.server.url("/a.png"), options: [.callbackQueue(.dispatch(queue))]
                ) { _ in continuation.resume(returning: DispatchQueue.getSpecific(key: key) == 42) }
            }
            #expect(onQueue)
        }
    }

    @Test func progressIsReportedForDownloads() async throws {
        try await withManager { f in
            let png = Fixtures.png(width: 64, height: 64)
            f.server.route("/a.png", TestHTTPServer.Route(body: png, chunkSize: 256))
            let received = Locked<[Int64]>([])
            _ = try await f.manager.retrieveImage(with: f.server.url("/a.png")) { done, _ in
                received.withLock { $0.append(done) }
            }
            let reports = received.withLock { $0 }
            #expect(!reports.isEmpty)
            #expect(reports.max() == Int64(png.count))
        }
    }
}
