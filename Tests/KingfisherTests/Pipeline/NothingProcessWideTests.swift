import CoreMetrics
import Foundation
import KingfisherLocking
import KingfisherTestSupport
import MetricsTestKit
import Testing

@testable import Kingfisher

/// Two owners in one process share no state of the data flow: what was once process-wide (a pool of read buffers,
/// a decode-depth lock, the limits of the decode running on a thread, a processor's failure note, the disk write
/// route, the disk executor's size) now belongs to an owner, and one owner's never shows in another's.
@Suite(.timeLimit(.minutes(2)))
struct NothingProcessWideTests {
    /// A PNG of noise, which does not compress: `side`² × 4 bytes and a little more.
    private func noisePNG(side: Int) throws -> Data {
        var generator = SystemRandomNumberGenerator()
        let pixels = (0..<(side * side * 4)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let image = try KFCrossPlatformImage(rgbaPixels: pixels, width: side, height: side)
        return try #require(image.kf.pngRepresentation())
    }

    @Test func twoManagersDecodeAtOnceUnderTheirOwnPixelLimits() async throws {
        try await withTemporaryDirectory { directory in
            let strict = KingfisherManager(
                downloader: ImageDownloader(name: "strict"),
                cache: try makeCache(in: directory.appendingPathComponent("strict")))
            let open = KingfisherManager(
                downloader: ImageDownloader(name: "open"),
                cache: try makeCache(in: directory.appendingPathComponent("open")))
            var limits = strict.engine
            limits.maximumPixelCount = 100
            strict.engine = limits
            let png = Fixtures.png(width: 20, height: 10)
            // Given both managers decoding the same 200-pixel image at once, many times
            let outcomes = try await withThrowingTaskGroup(of: (String, Bool).self) { group in
                for index in 0..<24 {
                    let (name, manager) = index.isMultiple(of: 2) ? ("strict", strict) : ("open", open)
                    group.addTask {
                        let provider = RawImageDataProvider(data: png, cacheKey: "\(name)-\(index)")
                        do {
                            _ = try await manager.retrieveImage(with: .provider(provider))
                            return (name, true)
                        } catch let error as KingfisherError {
                            guard case .processorError(reason: .pixelLimitExceeded) = error else { throw error }
                            return (name, false)
                        }
                    }
                }
                return try await group.reduce(into: [(String, Bool)]()) { $0.append($1) }
            }
            // Then each decode ran under its own manager's limit: every strict one refused, every open one made
            #expect(outcomes.count == 24)
            #expect(outcomes.allSatisfy { name, made in made == (name == "open") }, "\(outcomes)")
        }
    }

    @Test func aProcessorsFailureNoteBelongsToItsOwnRun() throws {
        let reason = VipsError(operation: "outer", message: "the outer processor's reason")
        // Given a processor that notes a reason, then runs another processor (which succeeds), then gives nothing
        let inner = DefaultImageProcessor.default
        let outer = GeneralProcessor(identifier: "outer-noting") { item, options in
            _ = ProcessingFailure.fail(because: reason)
            _ = ProcessingFailure.run(inner, item: item, options: options)
            return nil
        }
        let options = KingfisherParsedOptionsInfo(nil)
        let outcome = ProcessingFailure.run(outer, item: .data(Fixtures.png()), options: options)
        // Then the inner run neither took nor cleared the outer run's note: the outer failure carries its reason
        guard case .failure(.processorError(reason: .processingFailed(let processor, _))) = outcome,
            let explained = processor as? ExplainedFailureProcessor
        else {
            Issue.record("expected processingFailed with a reason, got \(String(describing: outcome))")
            return
        }
        #expect(explained.reason.operation == "outer")
        // and a processor called outside any run notes nowhere: a later run starts clean
        _ = ProcessingFailure.fail(because: reason)
        let later = GeneralProcessor(identifier: "plain-nil") { _, _ in nil }
        #expect(ProcessingFailure.run(later, item: .data(Fixtures.png()), options: options) == nil)
    }

    @Test func theWorkersDepthGoesToTheirOwnersMetricsNotTheCallers() async throws {
        let ownerMetrics = TestMetrics()
        let callerMetrics = TestMetrics()
        try await withTemporaryDirectory { directory in
            // Given a manager made under its own metrics factory
            let manager = try withMetricsFactory(ownerMetrics) {
                KingfisherManager(downloader: ImageDownloader(name: "owner"), cache: try makeCache(in: directory))
            }
            // When a caller under another factory retrieves through it
            try await withMetricsFactory(callerMetrics) {
                let provider = RawImageDataProvider(data: Fixtures.png(), cacheKey: "depth")
                _ = try await manager.retrieveImage(with: .provider(provider), options: [.waitForCache])
            }
        }
        // Then the depth was counted by the owner's stage, up and back to zero, and nothing reached the caller's
        let depth = try ownerMetrics.expectMeter("kingfisher_decode_queue_depth")
        #expect(depth.values.contains { $0 >= 1 })
        #expect(depth.lastValue == 0)
        #expect((try? callerMetrics.expectMeter("kingfisher_decode_queue_depth")) == nil)
    }

    @Test func eachDiskStorageKeepsItsOwnReadBuffersRouteAndThreads() async throws {
        try await withTemporaryDirectory { directory in
            var firstConfig = diskConfig(directory.appendingPathComponent("first"))
            firstConfig.ioConcurrency = 1
            let first = try DiskStorage.Backend<Data>(config: firstConfig)
            let second = try DiskStorage.Backend<Data>(config: diskConfig(directory.appendingPathComponent("second")))
            #expect(first.io.limit == 1 && second.io.limit == 4)
            // Given one storage writing through temporary names and the other through unnamed files
            first.writesUnnamedFiles = false
            #expect(second.writesUnnamedFiles)
            let large = Data((0..<400_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            try first.store(value: large, forKey: "large")
            try second.store(value: large, forKey: "large")
            // When the first reads a large file and lets its bytes go
            do {
                let read = try first.value(forKey: "large")
                #expect(read == large)
            }
            // Then its buffer went back to its own pool, and the other storage's pool holds nothing
            #expect(first.readBuffers.keptBytes >= large.count)
            #expect(second.readBuffers.keptBytes == 0)
            #expect(try second.value(forKey: "large") == large)
            #expect(second.readBuffers.keptBytes >= large.count)
        }
    }

    @Test func eachDownloaderKeepsItsOwnBodyBuffers() async throws {
        let body = try noisePNG(side: 600)
        #expect(body.count > 1 << 20)
        try await withDownloader { server, downloader in
            let other = ImageDownloader(name: "other")
            server.route("/noise.png", .ok(body, contentType: "image/png"))
            // When one downloader takes a body of more than 1 MB and its bytes are let go
            do {
                let result = try await downloader.downloadImage(with: server.url("/noise.png"))
                #expect(result.originalData == body)
            }
            // Then the mapping went back to that downloader's pool only
            #expect(downloader.bodyBuffers.keptBytes >= body.count)
            #expect(other.bodyBuffers.keptBytes == 0)
            try await other.shutdown()
        }
    }
}
