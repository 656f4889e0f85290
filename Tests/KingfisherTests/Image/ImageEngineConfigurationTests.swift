import Foundation
import KingfisherLocking
import KingfisherTestSupport
import Testing

@testable import Kingfisher

/// Decode limits and concurrency belong to a manager (a downloader, a cache), so two in one process can differ.
@Suite(.timeLimit(.minutes(1)))
struct ImageEngineConfigurationTests {
    @Test func twoManagersInOneProcessApplyTheirOwnPixelLimits() async throws {
        try await withTemporaryDirectory { directory in
            try await withDownloader { server, downloader in
                // Given a 40 x 30 image (1,200 pixels) from the network and from a provider
                let png = Fixtures.png(width: 40, height: 30)
                server.route("/a.png", .ok(png))
                let lenient = KingfisherManager(downloader: downloader, cache: try makeCache(in: directory))
                let strict = KingfisherManager(
                    downloader: downloader,
                    cache: try makeCache(in: directory.appendingPathComponent("strict", isDirectory: true)))
                strict.engine.maximumPixelCount = 1_000
                // When both retrieve them at the same time
                async let fromLenient = lenient.retrieveImage(
                    with: .network(server.url("/a.png")), options: [.forceRefresh])
                async let strictNetwork = strict.callbackResult(
                    .network(server.url("/a.png")), options: [.forceRefresh])
                async let strictProvider = strict.callbackResult(
                    .provider(RawImageDataProvider(data: png, cacheKey: "provided")))
                // Then the lenient one decodes, the strict one refuses both from the header
                #expect(try await fromLenient.image.pixelWidth == 40)
                for result in await [strictNetwork, strictProvider] {
                    guard case .failure(.processorError(reason: .pixelLimitExceeded(_, _, let limit))) = result else {
                        Issue.record("expected pixelLimitExceeded, got \(result)")
                        continue
                    }
                    #expect(limit == 1_000)
                }
                // And the process-wide default is untouched
                #expect(ImageEngine.maximumPixelCount == 100_000_000)
            }
        }
    }

    @Test func aManagersDecodeConcurrencyBoundsItsRuns() async throws {
        try await withTemporaryDirectory { directory in
            try await withDownloader { _, downloader in
                let manager = KingfisherManager(downloader: downloader, cache: try makeCache(in: directory))
                manager.engine.decodeConcurrency = 1
                let probe = OverlapProbe()
                let png = Fixtures.png(width: 16, height: 16)
                let all = await withTaskGroup(of: Bool.self) { group in
                    for index in 0..<12 {
                        let source = Source.provider(RawImageDataProvider(data: png, cacheKey: "c\(index)"))
                        group.addTask {
                            (try? await manager.retrieveImage(with: source, options: [.processor(probe)])) != nil
                        }
                    }
                    return await group.reduce(into: [Bool]()) { $0.append($1) }
                }
                #expect(all.count == 12 && all.allSatisfy { $0 })
                #expect(probe.mostAtOnce == 1)
            }
        }
    }
}

/// A processor that holds each run briefly and records how many overlap.
private final class OverlapProbe: ImageProcessor {
    let identifier = "test.overlap-probe"
    private let state = Locked((running: 0, most: 0))

    var mostAtOnce: Int { state.withLock { $0.most } }

    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        state.withLock { state in
            state.running += 1
            state.most = max(state.most, state.running)
        }
        defer { state.withLock { $0.running -= 1 } }
        Thread.sleep(forTimeInterval: 0.02)
        return DefaultImageProcessor.default.process(item: item, options: options)
    }
}
