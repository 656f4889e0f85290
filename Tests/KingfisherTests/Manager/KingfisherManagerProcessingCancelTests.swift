import Dispatch
import Foundation
import Kingfisher
import KingfisherTestSupport
import KingfisherLocking
import Testing

@Suite(.timeLimit(.minutes(1)))
struct KingfisherManagerProcessingCancelTests {
    @Test(arguments: [false, true])
    func cancelDuringProcessingCallsBackOnceAndCachesNothing(fromProvider: Bool) async throws {
        try await withManager { f in
            let png = Fixtures.png()
            f.server.route("/a.png", .ok(png))
            let source: Source =
                fromProvider
                ? .provider(RawImageDataProvider(data: png, cacheKey: "blocked")) : .network(f.server.url("/a.png"))
            let processor = BlockingProcessor()
            let collector = RetrievalCollector()
            // Given a retrieval whose processor (ImageDownloaderCoalescingTests' BlockingProcessor) is running
            let task = f.manager.retrieveImage(
                with: source, options: [.processor(processor), .waitForCache], completionHandler: collector.handler)
            await processor.entered.wait(for: 1)
            // When it is cancelled there, the caller hears at once, before the processor finishes
            task?.cancel()
            await collector.wait(for: 1)
            #expect(collector.results[0].failure?.isTaskCancelled == true)
            processor.release.signal()
            // Then, after the processor finished and another retrieval went through the same pool and caches,
            // nothing was written for the cancelled one and there was no second callback
            _ = try await f.manager.retrieveImage(
                with: .provider(RawImageDataProvider(data: png, cacheKey: "after")), options: [.waitForCache])
            let settled = await eventually(timeout: 0.5) {
                f.cache.isCached(forKey: source.cacheKey, processorIdentifier: processor.identifier)
            }
            #expect(!settled)
            #expect(collector.results.count == 1)
        }
    }
}
