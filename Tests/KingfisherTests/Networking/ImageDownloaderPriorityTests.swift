import Foundation
import Kingfisher
import KingfisherLocking
import MetricsTestKit
import KingfisherTestSupport
import Testing

@Suite(.timeLimit(.minutes(1)))
struct ImageDownloaderPriorityTests {
    @Test func queuedDownloadsStartByPriority() async throws {
        try await withDownloader(configuration: .init(maxConcurrentDownloads: 1)) { server, downloader in
            // Given the only slot busy with a held response
            for path in ["/block", "/low", "/mid", "/high"] {
                server.route(path, .init(body: Fixtures.png(), held: path == "/block"))
            }
            let collector = ResultCollector()
            downloader.downloadImage(with: server.url("/block"), completionHandler: collector.handler)
            await server.waitForRequests("/block")
            // When three more are queued, lowest priority first
            for (path, priority) in [("/low", Float(0.1)), ("/mid", 0.5), ("/high", 0.9)] {
                downloader.downloadImage(
                    with: server.url(path), options: [.downloadPriority(priority)], completionHandler: collector.handler
                )
            }
            #expect(server.totalHits == 1)
            server.release("/block")
            await collector.wait(for: 4)
            // Then they ran one at a time, highest priority first
            #expect(server.requestLog == ["/block", "/high", "/mid", "/low"])
            #expect(server.maxInFlight == 1)
        }
    }

    @Test func concurrencyLimitIsHonoured() async throws {
        try await withDownloader(configuration: .init(maxConcurrentDownloads: 3)) { server, downloader in
            let collector = ResultCollector()
            // Every answer held, so the downloads in flight stay there until released, however busy the machine.
            for index in 0..<12 {
                server.route("/\(index).png", .init(body: Fixtures.png(), held: true))
                downloader.downloadImage(with: server.url("/\(index).png"), completionHandler: collector.handler)
            }
            await server.waitForRequests(count: 3)
            #expect(server.inFlight == 3)
            for index in 0..<12 { server.release("/\(index).png") }
            await collector.wait(for: 12)
            #expect(collector.results.allSatisfy { (try? $0.get()) != nil })
            #expect(server.maxInFlight == 3)
        }
    }

    @Test func cancellingAQueuedDownloadFreesNothingAndStartsNothing() async throws {
        try await withDownloader(configuration: .init(maxConcurrentDownloads: 1)) { server, downloader in
            server.route("/block", .init(body: Fixtures.png(), held: true))
            server.route("/queued", .ok(Fixtures.png()))
            server.route("/after", .ok(Fixtures.png()))
            let collector = ResultCollector()
            downloader.downloadImage(with: server.url("/block"), completionHandler: collector.handler)
            await server.waitForRequests("/block")
            let queued = downloader.downloadImage(with: server.url("/queued"), completionHandler: collector.handler)
            queued.cancel()
            await collector.wait(for: 1)
            #expect(collector.results[0].error?.isTaskCancelled == true)
            downloader.downloadImage(with: server.url("/after"), completionHandler: collector.handler)
            server.release("/block")
            await collector.wait(for: 3)
            #expect(server.requestLog == ["/block", "/after"])
        }
    }

    @Test func slotIsHeldWhileTheImageIsProcessed() async throws {
        // The downloader's slots record their queue's depth (a gauge of its metrics) under their lock at each
        // decision: the events this test reads, in the order they were made.
        try await withTestMetrics { metrics in
            try await withDownloader(configuration: .init(maxConcurrentDownloads: 1)) { server, downloader in
                server.route("/first.png", .ok(Fixtures.png()))
                server.route("/second.png", .ok(Fixtures.png()))
                let queued = try metrics.expectGauge(
                    "kingfisher_download_queue_depth", [("downloader", downloader.name)])
                // Given the only slot's body in a processor that, when let go, notes the queue as it is then
                let depthWhenProcessed = Locked<Double?>(nil)
                let processor = HeldProcessor { depthWhenProcessed.withLock { $0 = queued.lastValue } }
                let collector = ResultCollector()
                downloader.downloadImage(
                    with: server.url("/first.png"), options: [.processor(processor)],
                    completionHandler: collector.handler)
                await processor.entered.wait(for: 1)
                // When another download is asked for (its fetch queues for a slot in a task of its own)
                downloader.downloadImage(with: server.url("/second.png"), completionHandler: collector.handler)
                // Then the slots say it waits: bodies never pile up behind the workers
                #expect(await eventually { queued.lastValue == 1 })
                #expect(server.hits("/second.png") == 0)
                processor.release.signal()
                await collector.wait(for: 2)
                // And it was still waiting when the first image's processing ended: the slot was given back after
                // it, whenever a wrong release would have come before
                #expect(depthWhenProcessed.withLock { $0 } == 1)
                #expect(queued.lastValue == 0)
                #expect(server.requestLog == ["/first.png", "/second.png"])
            }
        }
    }
}

/// Blocks its pool thread until `release` is signalled, after telling `entered`; calls `onReturn` as it returns.
private struct HeldProcessor: ImageProcessor {
    let identifier = "com.example.held"
    let entered = ResultlessCounter()
    let release = DispatchSemaphore(value: 0)
    let onReturn: @Sendable () -> Void

    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        entered.increment()
        release.wait()
        defer { onReturn() }
        return DefaultImageProcessor.default.process(item: item, options: options)
    }
}
