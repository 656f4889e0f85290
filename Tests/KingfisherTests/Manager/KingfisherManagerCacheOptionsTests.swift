import Foundation
import Kingfisher
import KingfisherTestSupport
import KingfisherLocking
import Testing

@Suite(.timeLimit(.minutes(1)))
struct KingfisherManagerCacheOptionsTests {
    @Test func forceRefreshDownloadsAgain() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png()))
            let url = f.server.url("/a.png")
            _ = try await f.manager.retrieveImage(with: url, options: [.waitForCache])
            // When the cached image is refreshed
            let refreshed = try await f.manager.retrieveImage(with: url, options: [.forceRefresh])
            // Then the server is asked again
            #expect(refreshed.cacheType == .none)
            #expect(f.server.hits("/a.png") == 2)
        }
    }

    @Test func onlyFromCacheFailsOnAMissWithoutDownloading() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png()))
            let url = f.server.url("/a.png")
            let result = await f.manager.callbackResult(.network(url), options: [.onlyFromCache])
            guard case .cacheError(reason: .imageNotExisting(let key)) = result.failure else {
                Issue.record("expected imageNotExisting, got \(result)")
                return
            }
            #expect(key == url.cacheKey)
            #expect(f.server.hits("/a.png") == 0)
            // And once cached, it is served
            _ = try await f.manager.retrieveImage(with: url, options: [.waitForCache])
            f.cache.clearMemoryCache()
            let cached = try await f.manager.retrieveImage(with: url, options: [.onlyFromCache])
            #expect(cached.cacheType == .disk)
            #expect(f.server.hits("/a.png") == 1)
        }
    }

    @Test func fromMemoryCacheOrRefreshSkipsTheDisk() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png()))
            let url = f.server.url("/a.png")
            _ = try await f.manager.retrieveImage(with: url, options: [.waitForCache])
            f.cache.clearMemoryCache()
            // Given the image on disk only, when retrieved with fromMemoryCacheOrRefresh
            let result = try await f.manager.retrieveImage(with: url, options: [.fromMemoryCacheOrRefresh])
            // Then it is downloaded again instead of read from disk
            #expect(result.cacheType == .none)
            #expect(f.server.hits("/a.png") == 2)
            // And a memory hit is still used
            let hit = try await f.manager.retrieveImage(with: url, options: [.fromMemoryCacheOrRefresh])
            #expect(hit.cacheType == .memory)
            #expect(f.server.hits("/a.png") == 2)
        }
    }

    @Test func cacheMemoryOnlyLeavesTheDiskEmpty() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png()))
            let url = f.server.url("/a.png")
            // waitForCache makes any disk write happen before the completion, so its absence is observable
            _ = try await f.manager.retrieveImage(with: url, options: [.cacheMemoryOnly, .waitForCache])
            #expect(f.cache.imageCachedType(forKey: url.cacheKey) == .memory)
            #expect(!f.cache.diskStorage.isCached(forKey: url.cacheKey))
            #expect(cacheFiles(in: f.cache.diskStorage.directoryURL).isEmpty)
        }
    }

    @Test func waitForCacheMeansTheFileExistsWhenTheCompletionRuns() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png()))
            let url = f.server.url("/a.png")
            let path = f.cache.cachePath(forKey: url.cacheKey)
            let existed = await withCheckedContinuation { continuation in
                f.manager.retrieveImage(with: url, options: [.waitForCache]) { _ in
                    continuation.resume(returning: FileManager.default.fileExists(atPath: path))
                }
            }
            #expect(existed)
        }
    }

    @Test func processedImagesAreCachedUnderKeyAtProcessor() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png(width: 64, height: 48)))
            let url = f.server.url("/a.png")
            let processor = ResizingImageProcessor(referenceSize: CGSize(width: 16, height: 12))
            let result = try await f.manager.retrieveImage(
                with: url, options: [.processor(processor), .waitForCache])
            #expect(result.image.kf.size == CGSize(width: 16, height: 12))
            // The processed image is under key@identifier, in memory and on disk; nothing under the plain key
            let computed = "\(url.cacheKey)@\(processor.identifier)"
            #expect(f.cache.memoryStorage.isCached(forKey: computed))
            #expect(f.cache.diskStorage.isCached(forKey: computed))
            #expect(!f.cache.isCached(forKey: url.cacheKey))
            // Without the processor the image is a miss and is downloaded again
            let plain = try await f.manager.retrieveImage(with: url)
            #expect(plain.cacheType == .none)
            #expect(plain.image.kf.size == CGSize(width: 64, height: 48))
            #expect(f.server.hits("/a.png") == 2)
        }
    }

    @Test func cachedOriginalIsProcessedAgainWithoutADownload() async throws {
        try await withManager { f in
            let png = Fixtures.png(width: 64, height: 48)
            f.server.route("/a.png", .ok(png))
            let url = f.server.url("/a.png")
            let small = ResizingImageProcessor(referenceSize: CGSize(width: 8, height: 6))
            let medium = ResizingImageProcessor(referenceSize: CGSize(width: 16, height: 12))
            // Given a retrieval that also keeps the original
            _ = try await f.manager.retrieveImage(
                with: url, options: [.processor(small), .cacheOriginalImage, .waitForCache])
            #expect(f.cache.diskStorage.isCached(forKey: url.cacheKey))
            #expect(try f.cache.diskStorage.value(forKey: url.cacheKey) == png)
            // When another processor asks for the same URL
            let result = try await f.manager.retrieveImage(with: url, options: [.processor(medium), .waitForCache])
            // Then the original is processed again, stored under the new key, and nothing is downloaded
            #expect(result.cacheType == .none)
            #expect(result.image.kf.size == CGSize(width: 16, height: 12))
            #expect(f.server.hits("/a.png") == 1)
            #expect(f.cache.diskStorage.isCached(forKey: "\(url.cacheKey)@\(medium.identifier)"))
        }
    }

    @Test func withoutCacheOriginalImageTheOriginalIsNotKept() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png()))
            let url = f.server.url("/a.png")
            let small = ResizingImageProcessor(referenceSize: CGSize(width: 8, height: 6))
            let medium = ResizingImageProcessor(referenceSize: CGSize(width: 16, height: 12))
            _ = try await f.manager.retrieveImage(with: url, options: [.processor(small), .waitForCache])
            #expect(!f.cache.isCached(forKey: url.cacheKey))
            _ = try await f.manager.retrieveImage(with: url, options: [.processor(medium)])
            #expect(f.server.hits("/a.png") == 2)
        }
    }

    @Test func targetAndOriginalCachesAreTheOnesNamed() async throws {
        try await withManager { f in
            try await withTemporaryDirectory { targetDir in
                try await withTemporaryDirectory { originalDir in
                    let target = try makeCache(in: targetDir)
                    let originals = try makeCache(in: originalDir)
                    f.server.route("/a.png", .ok(Fixtures.png()))
                    let url = f.server.url("/a.png")
                    let small = ResizingImageProcessor(referenceSize: CGSize(width: 8, height: 6))
                    _ = try await f.manager.retrieveImage(
                        with: url,
                        options: [
                            .targetCache(target), .originalCache(originals), .processor(small), .cacheOriginalImage,
                            .waitForCache,
                        ])
                    // The processed image is in the target cache, the original in the original cache only
                    #expect(target.isCached(forKey: url.cacheKey, processorIdentifier: small.identifier))
                    #expect(!target.isCached(forKey: url.cacheKey))
                    #expect(originals.diskStorage.isCached(forKey: url.cacheKey))
                    #expect(cacheFiles(in: f.cache.diskStorage.directoryURL).isEmpty)
                    #expect(!f.cache.isCached(forKey: url.cacheKey, processorIdentifier: small.identifier))
                }
            }
        }
    }

    @Test func expirationsReachTheStorages() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png()))
            let url = f.server.url("/a.png")
            // An image stored already expired is not served from either layer
            _ = try await f.manager.retrieveImage(
                with: url, options: [.memoryCacheExpiration(.expired), .diskCacheExpiration(.expired), .waitForCache])
            #expect(!f.cache.isCached(forKey: url.cacheKey))
            let again = try await f.manager.retrieveImage(with: url)
            #expect(again.cacheType == .none)
            #expect(f.server.hits("/a.png") == 2)
        }
    }

    @Test func scaleFactorSetsTheImageScale() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png(width: 64, height: 48)))
            let result = try await f.manager.retrieveImage(with: f.server.url("/a.png"), options: [.scaleFactor(2)])
            #expect(result.image.kf.scale == 2)
            #expect(result.image.kf.size == CGSize(width: 32, height: 24))
        }
    }
}
