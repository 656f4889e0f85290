import Foundation
import Kingfisher
import KingfisherTestSupport
import KingfisherLocking
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(1)))
struct KFBuilderTests {
    @Test func urlBuilderRetrievesWithItsProcessorsAndCachesUnderTheirKey() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png(width: 64, height: 48)))
            let url = f.server.url("/a.png")
            // When a builder chains two processors and waits for the cache
            let result = try await KF.url(url)
                .manager(f.manager)
                .resizing(referenceSize: CGSize(width: 32, height: 24))
                .cropping(size: CGSize(width: 10, height: 10))
                .waitForCache()
                .retrieve()
            // Then the image went through both, and is cached under key@first|>second
            #expect(result.image.kf.size == CGSize(width: 10, height: 10))
            let expected =
                ResizingImageProcessor(referenceSize: CGSize(width: 32, height: 24))
                |> CroppingImageProcessor(size: CGSize(width: 10, height: 10))
            #expect(f.cache.diskStorage.isCached(forKey: "\(url.cacheKey)@\(expected.identifier)"))
        }
    }

    @Test func builderOptionsStartFromTheManagersDefaultsAndSettersWin() async throws {
        try await withManager { f in
            f.manager.defaultOptions = [.scaleFactor(2), .cacheMemoryOnly]
            let builder = KF.url(f.server.url("/a.png")).manager(f.manager).cacheMemoryOnly(false)
            #expect(builder.options.scaleFactor == 2)
            #expect(builder.options.cacheMemoryOnly == false)
            #expect(builder.options.processor.identifier.isEmpty)
        }
    }

    @Test func serializeAsStoresThatFormat() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png()))
            let url = f.server.url("/a.png")
            _ = try await KF.url(url).manager(f.manager).serialize(as: .JPEG, jpegCompressionQuality: 0.8)
                .waitForCache().retrieve()
            let stored = try #require(try f.cache.diskStorage.value(forKey: url.cacheKey))
            #expect(stored.kf.imageFormat == .JPEG)
        }
    }

    @Test func retryAndRequestModifierReachTheDownloader() async throws {
        try await withManager { f in
            // Given a server that fails once, then answers
            f.server.route("/flaky.png", sequence: [.status(503), .ok(Fixtures.png())])
            let result = try await KF.url(f.server.url("/flaky.png"))
                .manager(f.manager)
                .retry(maxCount: 1, interval: .seconds(0))
                .requestModifier { $0.setValue("yes", forHTTPHeaderField: "X-Test") }
                .retrieve()
            #expect(result.cacheType == .none)
            #expect(f.server.hits("/flaky.png") == 2)
            let header = f.server.lastRequestHeaders("/flaky.png")?.first { $0.0.lowercased() == "x-test" }?.1
            #expect(header == "yes")
        }
    }

    @Test func onSuccessAndOnFailureAreCalled() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png()))
            f.server.route("/missing.png", .status(404))
            let events = Locked<[String]>([])
            let counter = ResultlessCounter()
            _ = try await KF.url(f.server.url("/a.png")).manager(f.manager)
                .onSuccess { result in
                    events.withLock { $0.append("success \(result.cacheType)") }
                    counter.increment()
                }
                .onFailure { _ in events.withLock { $0.append("failure") } }
                .retrieve()
            await #expect(throws: KingfisherError.self) {
                try await KF.url(f.server.url("/missing.png")).manager(f.manager)
                    .onFailure { error in
                        events.withLock { $0.append("failure \(error.errorCode)") }
                        counter.increment()
                    }
                    .retrieve()
            }
            await counter.wait(for: 2)
            #expect(events.withLock { $0 } == ["success none", "failure 2002"])
        }
    }

    @Test func nilSourceFailsWithEmptySource() async throws {
        try await withManager { f in
            await #expect {
                try await KF.url(nil).manager(f.manager).retrieve()
            } throws: { error in
                guard case .imageSettingError(reason: .emptySource) = error as? KingfisherError else { return false }
                return true
            }
        }
    }

    @Test func dataAndProviderBuildersUseTheirCacheKeys() async throws {
        try await withManager { f in
            let png = Fixtures.png(width: 20, height: 10)
            let fromData = try await KF.data(source: png, cacheKey: "bytes").manager(f.manager).retrieve()
            #expect(fromData.image.kf.size == CGSize(width: 20, height: 10))
            #expect(f.cache.memoryStorage.isCached(forKey: "bytes"))
            let provider = RawImageDataProvider(data: png, cacheKey: "provided")
            // The provider's key is not cached yet, so onlyFromCache fails
            await #expect {
                try await KF.dataProvider(provider).manager(f.manager).onlyFromCache().retrieve()
            } throws: { error in
                guard case .cacheError(reason: .imageNotExisting(let key)) = error as? KingfisherError else {
                    return false
                }
                return key == "provided"
            }
            _ = try await KF.dataProvider(provider).manager(f.manager).retrieve()
            #expect(f.cache.memoryStorage.isCached(forKey: "provided"))
        }
    }
}
