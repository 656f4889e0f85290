import Foundation
import KingfisherLocking
import KingfisherTestSupport
import MetricsTestKit
import Testing

@testable import Kingfisher

/// Concurrent retrievals of one source and processor share every stage: one download, one decode and processing,
/// one encode, one disk write; every retrieval gets the encoded bytes.
@Suite(.timeLimit(.minutes(2)))
struct SharedRetrievalTests {
    @Test func twoHundredConcurrentRetrievalsDownloadDecodeEncodeAndWriteOnce() async throws {
        try await withTestMetrics { metrics in
            try await withManager { f in
                let photo = Fixtures.png(width: 120, height: 80)
                f.server.route("/photo.png", TestHTTPServer.Route(body: photo, held: true))
                let runs = Locked(0)
                let processor = HalvingCounter(runs: runs)
                let source = Source.network(f.server.url("/photo.png"))
                let downloader = ("downloader", f.downloader.name)
                let cache = ("cache", f.cache.diskStorage.config.name)
                let stored = try await withThrowingTaskGroup(of: RetrieveImageResult.self) { group in
                    for _ in 0..<200 {
                        group.addTask {
                            try await f.manager.retrieveImage(
                                with: source, options: [.processor(processor), .waitForCache])
                        }
                    }
                    // Every retrieval joined the one download before its body comes.
                    #expect(
                        await eventually(timeout: 60) {
                            metrics.total("kingfisher_download_waiters_coalesced_total", [downloader]) == 199
                        })
                    f.server.release("/photo.png")
                    var results: [RetrieveImageResult] = []
                    for try await result in group { results.append(result) }
                    #expect(results.count == 200)
                    let stored = try #require(results.first?.encodedData)
                    #expect(results.allSatisfy { $0.encodedData == stored })
                    #expect(results.allSatisfy { $0.image.pixelWidth == 60 })
                    return stored
                }
                #expect(f.server.hits("/photo.png") == 1)
                #expect(runs.withLock { $0 } == 1)
                #expect(metrics.recordedCount("kingfisher_processing_duration_seconds", [("stage", "encode")]) == 1)
                #expect(metrics.total("kingfisher_disk_writes_total", [cache]) == 1)
                let computed = ImageCache.computedKey(
                    forKey: source.cacheKey, processorIdentifier: processor.identifier)
                #expect(try f.cache.diskStorage.value(forKey: computed) == stored)
            }
        }
    }
}

/// Halves an image, counting its runs.
private struct HalvingCounter: ImageProcessor {
    let identifier = "test.counting-half"
    let runs: Locked<Int>

    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        runs.withLock { $0 += 1 }
        guard let image = DefaultImageProcessor.default.process(item: item, options: options) else { return nil }
        return image.kf.resize(to: CGSize(width: image.pixelWidth / 2, height: image.pixelHeight / 2))
    }
}
