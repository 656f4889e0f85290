import Foundation
import Kingfisher
import KingfisherTestSupport
import Testing

/// `.lowDataMode(source)`: Linux has no constrained-network signal, so the low-data source is taken only when the
/// downloader is told the network is constrained (``ImageDownloader/isNetworkConstrained``).
@Suite(.timeLimit(.minutes(1)))
struct KingfisherManagerLowDataModeTests {
    @Test func theMainSourceLoadsUnlessTheNetworkIsConstrained() async throws {
        try await withManager { f in
            f.server.route("/full.png", .ok(Fixtures.png(width: 40, height: 30)))
            f.server.route("/small.png", .ok(Fixtures.png(width: 4, height: 3)))
            let low = Source.network(f.server.url("/small.png"))
            #expect(!f.downloader.isNetworkConstrained)
            let result = try await f.manager.retrieveImage(
                with: .network(f.server.url("/full.png")), options: [.lowDataMode(low), .waitForCache])
            #expect(result.image.kf.size == CGSize(width: 40, height: 30))
            #expect(f.server.hits("/small.png") == 0)
        }
    }

    @Test func aConstrainedNetworkLoadsTheLowDataSourceInstead() async throws {
        try await withManager { f in
            f.server.route("/full.png", .ok(Fixtures.png(width: 40, height: 30)))
            f.server.route("/small.png", .ok(Fixtures.png(width: 4, height: 3)))
            f.downloader.isNetworkConstrained = true
            let main = Source.network(f.server.url("/full.png"))
            let low = Source.network(f.server.url("/small.png"))
            let result = try await f.manager.retrieveImage(with: main, options: [.lowDataMode(low), .waitForCache])
            // The low-data source was downloaded and cached under its own key; the main one was never requested
            #expect(result.image.kf.size == CGSize(width: 4, height: 3))
            #expect(result.source.cacheKey == low.cacheKey)
            #expect(result.originalSource.cacheKey == main.cacheKey)
            #expect(f.server.hits("/full.png") == 0)
            #expect(f.cache.isCached(forKey: low.cacheKey))
            #expect(!f.cache.isCached(forKey: main.cacheKey))
            // Without the option the main source loads even on a constrained network
            let plain = try await f.manager.retrieveImage(with: main, options: [.waitForCache])
            #expect(plain.image.kf.size == CGSize(width: 40, height: 30))
        }
    }

    @Test func aCachedMainImageIsStillUsedOnAConstrainedNetwork() async throws {
        try await withManager { f in
            f.server.route("/full.png", .ok(Fixtures.png(width: 40, height: 30)))
            let main = Source.network(f.server.url("/full.png"))
            _ = try await f.manager.retrieveImage(with: main, options: [.waitForCache])
            f.downloader.isNetworkConstrained = true
            let low = Source.provider(RawImageDataProvider(data: Fixtures.png(width: 4, height: 3), cacheKey: "low"))
            let result = try await f.manager.retrieveImage(with: main, options: [.lowDataMode(low)])
            #expect(result.image.kf.size == CGSize(width: 40, height: 30))
            #expect(result.cacheType == .memory)
        }
    }

    @Test func theBuilderSetsTheLowDataSource() async throws {
        try await withManager { f in
            f.downloader.isNetworkConstrained = true
            let low = Source.provider(RawImageDataProvider(data: Fixtures.png(width: 4, height: 3), cacheKey: "low"))
            let builder = KF.url(f.server.url("/never.png")).manager(f.manager).lowDataModeSource(low)
            #expect(builder.options.lowDataModeSource?.cacheKey == "low")
            let result = try await builder.retrieve()
            #expect(result.image.kf.size == CGSize(width: 4, height: 3))
            #expect(f.server.hits("/never.png") == 0)
        }
    }
}
