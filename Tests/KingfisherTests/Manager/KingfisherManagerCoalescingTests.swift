import Foundation
import Kingfisher
import KingfisherTestSupport
import KingfisherLocking
import Testing

/// Resizes to a fixed size and counts how often it ran.
final class CountingProcessor: ImageProcessor {
    let identifier: String
    private let inner: ResizingImageProcessor
    private let calls = Locked(0)

    init(width: CGFloat) {
        inner = ResizingImageProcessor(referenceSize: CGSize(width: width, height: width))
        identifier = "test.counting(\(width))"
    }

    var callCount: Int { calls.withLock { $0 } }

    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        calls.withLock { $0 += 1 }
        return inner.process(item: item, options: options)
    }
}

@Suite(.timeLimit(.minutes(1)))
struct KingfisherManagerCoalescingTests {
    @Test func sameURLAndProcessorDownloadsOnceAndProcessesOnce() async throws {
        try await withManager { f in
            f.server.route("/held.png", TestHTTPServer.Route(body: Fixtures.png(), held: true))
            let url = f.server.url("/held.png")
            let processor = CountingProcessor(width: 8)
            let collector = RetrievalCollector()
            // Given two retrievals of the same URL with the same processor, both waiting on one request
            let tasks = (0..<2).map { _ in
                f.manager.retrieveImage(
                    with: url, options: [.processor(processor)], completionHandler: collector.handler)
            }
            await f.server.waitForRequests("/held.png")
            // The second one joins the first's request (each attaches after its cache lookups)
            await waitUntilAttached(tasks)
            f.server.release("/held.png")
            await collector.wait(for: 2)
            // Then both get the image from one download and one processing
            #expect(collector.results.allSatisfy { (try? $0.get())?.image.kf.size == CGSize(width: 8, height: 8) })
            #expect(f.server.hits("/held.png") == 1)
            #expect(processor.callCount == 1)
        }
    }

    @Test func sameURLDifferentProcessorsDownloadsOnceAndProcessesEach() async throws {
        try await withManager { f in
            f.server.route("/held.png", TestHTTPServer.Route(body: Fixtures.png(), held: true))
            let url = f.server.url("/held.png")
            let small = CountingProcessor(width: 8)
            let large = CountingProcessor(width: 16)
            let collector = RetrievalCollector()
            let tasks = [
                f.manager.retrieveImage(with: url, options: [.processor(small)], completionHandler: collector.handler),
                f.manager.retrieveImage(with: url, options: [.processor(large)], completionHandler: collector.handler),
            ]
            await f.server.waitForRequests("/held.png")
            await waitUntilAttached(tasks)
            f.server.release("/held.png")
            await collector.wait(for: 2)
            let sizes = Set(collector.results.compactMap { (try? $0.get())?.image.kf.size.width })
            #expect(sizes == [8, 16])
            #expect(f.server.hits("/held.png") == 1)
            #expect(small.callCount == 1)
            #expect(large.callCount == 1)
        }
    }
}

/// Waits until every task is attached to one shared HTTP task (each attaches after its cache lookups, which run
/// on other threads), and checks that they share it.
private func waitUntilAttached(_ tasks: [DownloadTask?]) async {
    let attached = await eventually { tasks.allSatisfy { $0?.sessionTask != nil } }
    #expect(attached)
    #expect(tasks.compactMap { $0?.sessionTask }.allSatisfy { $0 === tasks.first??.sessionTask })
}
