import Foundation
import KingfisherLocking
import Testing

@testable import Kingfisher

/// A retrieval that goes away while its decode waits for a thread takes the decode with it: the decode leaves the
/// queue and never runs (a gallery tile scrolled away costs no decode).
@Suite(.timeLimit(.minutes(2)))
struct CancelledDecodeTests {
    @Test func aDiskHitWhoseRetrievalIsCancelledWhileItsDecodeWaitsIsNeverDecoded() async throws {
        try await withTemporaryDirectory { directory in
            // A decode concurrency no other test uses, so that this test owns the process-wide lane of that size.
            let threads = 5
            var engine = ImageEngine.Configuration.default
            engine.decodeConcurrency = threads
            let cache = try makeCache(in: directory)
            try await cache.storeToDisk(Fixtures.png(width: 32, height: 24), forKey: "tile")
            let manager = KingfisherManager(downloader: ImageDownloader(name: "cancelled-decode"), cache: cache)
            manager.engine = engine
            let lane = DecodeExecutor.lane(threads: threads)
            // Given every decode thread busy
            let blocker = await LaneBlocker(lane: lane, threads: threads)
            let startedBefore = lane.startedCount
            // and a retrieval whose disk hit waits for one (the URL is never asked: the entry is on disk)
            let resource = KF.ImageResource(downloadURL: URL(string: "http://127.0.0.1:9/tile.png")!, cacheKey: "tile")
            let retrieval = Task { try await manager.retrieveImage(with: resource) }
            #expect(await eventually(timeout: 40) { lane.waitingCount == 1 })
            // When the retrieval is cancelled
            retrieval.cancel()
            await #expect(throws: KingfisherError.self) { try await retrieval.value }
            // Then its decode left the queue, and does not run when the threads free
            #expect(await eventually(timeout: 40) { lane.leftCount == 1 })
            #expect(lane.waitingCount == 0)
            blocker.release()
            await lane.run {}
            #expect(lane.startedCount == startedBefore + 1)
            // The entry is still there for the next retrieval.
            let again = try await manager.retrieveImage(with: resource)
            #expect(again.cacheType == .disk && again.image.pixelWidth == 32)
        }
    }
}
