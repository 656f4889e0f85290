import Foundation
import Kingfisher
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
        try await withDownloader(configuration: .init(maxConcurrentDownloads: 1)) { server, downloader in
            // Given the only slot's body waiting in a blocked processor
            server.route("/first.png", .ok(Fixtures.png()))
            server.route("/second.png", .ok(Fixtures.png()))
            let processor = BlockingProcessor()
            let collector = ResultCollector()
            downloader.downloadImage(
                with: server.url("/first.png"), options: [.processor(processor)], completionHandler: collector.handler)
            await processor.entered.wait(for: 1)
            // When another download is asked for, it waits: bodies never pile up behind the decoder
            let arrival = Task {
                await server.waitForRequests("/second.png")
                return ContinuousClock.now
            }
            downloader.downloadImage(with: server.url("/second.png"), completionHandler: collector.handler)
            // No event marks "nothing happened": give a wrongly freed slot 300 ms to show itself.
            try await Task.sleep(for: .milliseconds(300))
            let releasedAt = ContinuousClock.now
            #expect(server.hits("/second.png") == 0)
            processor.release.signal()
            #expect(await arrival.value >= releasedAt)
            await collector.wait(for: 2)
            #expect(server.requestLog == ["/first.png", "/second.png"])
        }
    }
}
