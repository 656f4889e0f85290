import Dispatch
import Foundation
import Kingfisher
import KingfisherLocking
import Testing

private struct TestProcessor: ImageProcessor {
    let identifier: String
    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        if case .image(let image) = item { return image }
        return nil
    }
}

@Suite(.timeLimit(.minutes(1)))
struct ImageCacheTests {
    let image = Fixtures.gradient(width: 24, height: 16)

    @Test func storeThenRetrieveFromMemoryThenDisk() async throws {
        try await withTemporaryDirectory { directory in
            let cache = try makeCache(in: directory)
            try await cache.store(image, original: Fixtures.png(width: 24, height: 16), forKey: "k")
            #expect(try await cache.retrieveImage(forKey: "k").cacheType == .memory)
            cache.clearMemoryCache()
            let fromDisk = try await cache.retrieveImage(forKey: "k")
            #expect(fromDisk.cacheType == .disk)
            #expect(fromDisk.image?.kf.rgbaPixels() == image.kf.rgbaPixels())
            // A disk hit is put in memory
            #expect(cache.imageCachedType(forKey: "k") == .memory)
            #expect(try await cache.retrieveImage(forKey: "other").cacheType == .none)
        }
    }

    @Test func callbackFormsReportTheSame() async throws {
        try await withTemporaryDirectory { directory in
            let cache = try makeCache(in: directory)
            let stored: CacheStoreResult = await withSanitizedCheckedContinuation { continuation in
                cache.store(image, forKey: "k", processorIdentifier: "p") { continuation.resume(returning: $0) }
            }
            #expect((try? stored.diskCacheResult.get()) != nil)
            cache.clearMemoryCache()
            let result: Result<ImageCacheResult, KingfisherError> = await withSanitizedCheckedContinuation {
                continuation in
                cache.retrieveImage(forKey: "k", options: [.processor(TestProcessor(identifier: "p"))]) {
                    continuation.resume(returning: $0)
                }
            }
            #expect(try result.get().cacheType == .disk)
            let disk: Result<KFCrossPlatformImage?, KingfisherError> = await withSanitizedCheckedContinuation {
                continuation in
                cache.retrieveImageInDiskCache(forKey: "k@p") { continuation.resume(returning: $0) }
            }
            #expect(try disk.get() != nil)
            let size: Result<UInt, KingfisherError> = await withSanitizedCheckedContinuation { continuation in
                cache.calculateDiskStorageSize { continuation.resume(returning: $0) }
            }
            #expect(try size.get() > 0)
        }
    }

    @Test func processedImagesLiveUnderKeyAtIdentifier() async throws {
        try await withTemporaryDirectory { directory in
            let cache = try makeCache(in: directory)
            try await cache.store(image, forKey: "k", processorIdentifier: "com.example.Blur(2)")
            #expect(cache.isCached(forKey: "k", processorIdentifier: "com.example.Blur(2)"))
            #expect(!cache.isCached(forKey: "k"))
            #expect(cache.diskStorage.isCached(forKey: "k@com.example.Blur(2)"))
            #expect(cache.memoryStorage.isCached(forKey: "k@com.example.Blur(2)"))
            // The default processor's identifier is empty: plain key
            let plain = KingfisherParsedOptionsInfo([.processor(DefaultImageProcessor.default)])
            try await cache.store(image, forKey: "k", options: plain)
            #expect(cache.memoryStorage.isCached(forKey: "k"))
            #expect(ImageCache.computedKey(forKey: "k", processorIdentifier: "") == "k")
            // Options pick the processed entry
            let options: KingfisherOptionsInfo = [.processor(TestProcessor(identifier: "com.example.Blur(2)"))]
            #expect(cache.retrieveImageInMemoryCache(forKey: "k", options: options) != nil)
        }
    }

    @Test func hashAndCachePathUseSHA256OfTheComputedKey() async throws {
        try await withTemporaryDirectory { directory in
            let cache = try makeCache(in: directory)
            let expected = sha256sum("k@p")
            #expect(cache.hash(forKey: "k", processorIdentifier: "p") == expected)
            #expect(cache.cachePath(forKey: "k", processorIdentifier: "p").hasSuffix("/" + expected))
            #expect(cache.cacheFileURLIfOnDisk(forKey: "k", processorIdentifier: "p") == nil)
            try await cache.storeToDisk(Fixtures.png(), forKey: "k", processorIdentifier: "p")
            #expect(cache.cacheFileURLIfOnDisk(forKey: "k", processorIdentifier: "p")?.lastPathComponent == expected)
        }
    }

    @Test func cachedTypeDoesNotDecode() async throws {
        try await withTemporaryDirectory { directory in
            // Given garbage stored on disk: a type check that decoded would say .none or remove it
            let cache = try makeCache(in: directory)
            try await cache.storeToDisk(garbageBytes, forKey: "g")
            #expect(cache.imageCachedType(forKey: "g") == .disk)
            #expect(cache.isCached(forKey: "g"))
            #expect(FileManager.default.fileExists(atPath: cache.cachePath(forKey: "g")))
        }
    }

    @Test func aCorruptFileIsAMissAndIsRemoved() async throws {
        try await withTemporaryDirectory { directory in
            // Given a valid image on disk whose file is then overwritten with garbage
            let cache = try makeCache(in: directory)
            try await cache.store(image, forKey: "k")
            cache.clearMemoryCache()
            // (as bit rot would: the modification date, which holds the expiration, is kept)
            let path = cache.cachePath(forKey: "k")
            let expiry = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
            try garbageBytes.write(to: URL(fileURLWithPath: path))
            try FileManager.default.setAttributes([.modificationDate: try #require(expiry)], ofItemAtPath: path)
            // When it is retrieved: a miss, not an error or a crash, and the file is gone
            #expect(try await cache.retrieveImage(forKey: "k").cacheType == .none)
            #expect(!FileManager.default.fileExists(atPath: cache.cachePath(forKey: "k")))
            // A truncated image behaves the same
            let png = Fixtures.png()
            try await cache.storeToDisk(png.prefix(png.count / 2), forKey: "t")
            #expect(try await cache.retrieveImageInDiskCache(forKey: "t") == nil)
            #expect(!cache.isCached(forKey: "t"))
            // An empty file too
            try await cache.storeToDisk(Data(), forKey: "e")
            #expect(try await cache.retrieveImage(forKey: "e").cacheType == .none)
        }
    }

    @Test func removeImageRemovesBothLayers() async throws {
        try await withTemporaryDirectory { directory in
            let cache = try makeCache(in: directory)
            try await cache.store(image, forKey: "k")
            try await cache.removeImage(forKey: "k", fromDisk: false)
            #expect(cache.imageCachedType(forKey: "k") == .disk)
            try await cache.removeImage(forKey: "k")
            #expect(cache.imageCachedType(forKey: "k") == .none)
        }
    }

    @Test func clearAndSize() async throws {
        try await withTemporaryDirectory { directory in
            let cache = try makeCache(in: directory)
            for index in 0..<4 { try await cache.store(image, forKey: "\(index)") }
            #expect(try await cache.diskStorageSize > 0)
            #expect(cache.memoryStorageCacheCost == 4 * image.kf.cost)
            await cache.clearCache()
            #expect(try await cache.diskStorageSize == 0)
            #expect(cache.memoryStorageCacheCost == 0)
            #expect(cache.imageCachedType(forKey: "0") == .none)
        }
    }

    @Test func expiryUsesTheOptionsAndInjectedTime() async throws {
        try await withTemporaryDirectory { directory in
            let clock = TestClock()
            let cache = try makeCache(in: directory, clock: clock)
            var options = KingfisherParsedOptionsInfo(nil)
            options.memoryCacheExpiration = .seconds(5)
            options.diskCacheExpiration = .seconds(50)
            try await cache.store(image, forKey: "k", options: options)
            clock.advance(by: 6)
            #expect(cache.imageCachedType(forKey: "k") == .disk)
            clock.advance(by: 50)
            #expect(cache.imageCachedType(forKey: "k") == .none)
            #expect(try await cache.retrieveImage(forKey: "k").cacheType == .none)
        }
    }

    @Test func cleaningReportsRemovedHashesToTheEventStream() async throws {
        try await withTemporaryDirectory { directory in
            let clock = TestClock()
            let cache = try makeCache(in: directory, clock: clock)
            let events = cache.diskCacheCleanedEvents()
            try await cache.storeToDisk(Fixtures.png(), forKey: "old", expiration: .seconds(1))
            try await cache.storeToDisk(Fixtures.png(), forKey: "new", expiration: .seconds(100))
            clock.advance(by: 2)
            await cache.cleanExpiredCache()
            var iterator = events.makeAsyncIterator()
            #expect(await iterator.next() == [cache.hash(forKey: "old")])
            #expect(cache.isCached(forKey: "new"))
        }
    }

    @Test func fromMemoryCacheOrRefreshSkipsTheDisk() async throws {
        try await withTemporaryDirectory { directory in
            let cache = try makeCache(in: directory)
            try await cache.store(image, forKey: "k")
            cache.clearMemoryCache()
            #expect(try await cache.retrieveImage(forKey: "k", options: [.fromMemoryCacheOrRefresh]).cacheType == .none)
            #expect(try await cache.retrieveImage(forKey: "k").cacheType == .disk)
        }
    }

    @Test func serializerFailureIsReportedAndMemoryStillHoldsTheImage() async throws {
        struct Refusing: CacheSerializer {
            func data(with image: KFCrossPlatformImage, original: Data?) -> Data? { nil }
            func image(with data: Data, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? { nil }
        }
        try await withTemporaryDirectory { directory in
            let cache = try makeCache(in: directory)
            do {
                try await cache.store(image, forKey: "k", cacheSerializer: Refusing())
                Issue.record("expected cannotSerializeImage")
            } catch let error as KingfisherError {
                #expect(error.errorCode == 3008)
            } catch {
                Issue.record("unexpected \(error)")
            }
            #expect(cache.imageCachedType(forKey: "k") == .memory)
        }
    }

    @Test func optionsCarryTargetAndOriginalCaches() async throws {
        try await withTemporaryDirectory { directory in
            let cache = try makeCache(in: directory)
            let parsed = KingfisherParsedOptionsInfo([.targetCache(cache)])
            #expect(parsed.targetCache === cache)
            #expect(parsed.originalCache === cache)
        }
    }

    @Test func callbacksRunOnTheRequestedQueue() async throws {
        try await withTemporaryDirectory { directory in
            let cache = try makeCache(in: directory)
            try await cache.store(image, forKey: "k")
            cache.clearMemoryCache()
            let queue = DispatchQueue(label: "callback-test")
            let marker = DispatchSpecificKey<Int>()
            queue.setSpecific(key: marker, value: 42)
            let seen: Int? = await withSanitizedCheckedContinuation { continuation in
                cache.retrieveImage(forKey: "k", callbackQueue: .dispatch(queue)) { _ in
                    continuation.resume(returning: DispatchQueue.getSpecific(key: marker))
                }
            }
            #expect(seen == 42)
            #expect(cache.imageCachedType(forKey: "k") == .memory)
        }
    }

    @Test func cacheErrorsHaveCodesAndDescriptions() {
        let reason = KingfisherError.CacheErrorReason.imageNotExisting(key: "abc")
        #expect(reason.errorCode == 3006)
        #expect(KingfisherError.cacheError(reason: reason).description.contains("abc"))
        let url = URL(fileURLWithPath: "/x")
        #expect(KingfisherError.CacheErrorReason.diskStorageIsNotReady(cacheURL: url).errorCode == 3011)
    }
}
