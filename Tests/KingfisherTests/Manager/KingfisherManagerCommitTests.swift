import Foundation
import KingfisherLocking
import KingfisherTestSupport
import Testing

@testable import Kingfisher

/// Once a retrieval has committed to its result (before it writes the cache), cancelling any of its tasks does
/// nothing: the caller gets the image that is being stored, never "cancelled".
@Suite(.timeLimit(.minutes(1)))
struct KingfisherManagerCommitTests {
    @Test func aCancelAfterTheCommitOfAnAlternativeDeliversTheStoredImage() async throws {
        try await withManager { f in
            // Given a source that fails and an alternative that succeeds, whose disk write is held
            f.server.route("/broken.png", .status(404))
            f.server.route("/backup.png", .ok(Fixtures.png(width: 12, height: 8)))
            let serializer = HeldSerializer()
            let updated = Locked<[DownloadTask?]>([])
            let collector = RetrievalCollector()
            let first = f.manager.retrieveImage(
                with: f.server.url("/broken.png"),
                options: [
                    .alternativeSources([.network(f.server.url("/backup.png"))]), .waitForCache,
                    .cacheSerializer(serializer),
                ],
                downloadTaskUpdated: { task in updated.withLock { $0.append(task) } },
                completionHandler: collector.handler)
            // When every task of the retrieval is cancelled while the committed image is being written
            let encoding = await eventually(timeout: 40) { serializer.isHeld }
            #expect(encoding)
            first?.cancel()
            for task in updated.withLock({ $0 }) { task?.cancel() }
            serializer.release()
            await collector.wait(for: 1)
            // Then the caller gets the image, and it is in the cache
            let result = try collector.results[0].get()
            #expect(result.image.pixelWidth == 12)
            #expect(f.cache.isCached(forKey: f.server.url("/backup.png").cacheKey))
            #expect(first?.isCancelled == false)
        }
    }
}

/// Encodes like the default serializer, but holds the first encode until released.
private final class HeldSerializer: CacheSerializer {
    private let state = Locked((held: false, released: false))
    private let gate = DispatchSemaphore(value: 0)

    var isHeld: Bool { state.withLock { $0.held } }

    func release() {
        state.withLock { $0.released = true }
        gate.signal()
    }

    func data(with image: KFCrossPlatformImage, original: Data?) -> Data? {
        let wait = state.withLock { state -> Bool in
            guard !state.released else { return false }
            state.held = true
            return true
        }
        if wait { gate.wait() }
        return DefaultCacheSerializer.default.data(with: image, original: original)
    }

    func image(with data: Data, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        DefaultCacheSerializer.default.image(with: data, options: options)
    }
}
