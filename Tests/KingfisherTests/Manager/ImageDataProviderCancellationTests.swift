import Foundation
import Kingfisher
import KingfisherLocking
import XCTest

/// Cancelling a provider-backed retrieval reports Kingfisher 8.11's `.requestError(reason: .dataProviderCancelled)`,
/// through the returned `DownloadTask` and through a cancelled Swift task, and stops a provider that honours
/// cancellation.
final class ImageDataProviderCancellationTests: XCTestCase {
    /// A provider that says when it started, then waits for its task to be cancelled (or for a minute).
    private final class CooperativeProvider: ImageDataProvider {
        let cacheKey: String
        let started = ResultlessCounter()
        private let sawCancellation = Locked(false)

        init(cacheKey: String) { self.cacheKey = cacheKey }

        var stoppedByCancellation: Bool { sawCancellation.withLock { $0 } }

        func data() async throws -> Data {
            started.increment()
            do {
                try await Task.sleep(for: .seconds(60))
            } catch is CancellationError {
                sawCancellation.withLock { $0 = true }
                throw CancellationError()
            }
            return Fixtures.png()
        }
    }

    /// A callback provider that ignores cancellation: it hands over its bytes only when released.
    private final class HeldCallbackProvider: ImageDataProvider {
        let cacheKey: String
        let started = ResultlessCounter()
        let returned = ResultlessCounter()
        private let pending = Locked<(@Sendable (Result<Data, any Error>) -> Void)?>(nil)

        init(cacheKey: String) { self.cacheKey = cacheKey }

        func data(handler: @escaping @Sendable (Result<Data, any Error>) -> Void) {
            pending.withLock { $0 = handler }
            started.increment()
        }

        func release() {
            let handler = pending.withLock { $0 }
            handler?(.success(Fixtures.png()))
            returned.increment()
        }
    }

    private func assertDataProviderCancelled(
        _ error: (any Error)?, key: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        guard case .requestError(reason: .dataProviderCancelled(let provider)) = error as? KingfisherError else {
            XCTFail("expected dataProviderCancelled, got \(String(describing: error))", file: file, line: line)
            return
        }
        XCTAssertEqual(provider.cacheKey, key, file: file, line: line)
        let kingfisherError = error as? KingfisherError
        XCTAssertEqual(kingfisherError?.errorCode, 1006, file: file, line: line)
        XCTAssertEqual(kingfisherError?.isTaskCancelled, true, file: file, line: line)
        XCTAssertTrue(kingfisherError?.errorDescription?.contains(key) == true, file: file, line: line)
    }

    func testCancellingTheDownloadTaskReportsDataProviderCancelledAndStopsTheProvider() async throws {
        try await withManager { f in
            let provider = CooperativeProvider(cacheKey: "cooperative")
            let collector = RetrievalCollector()
            // Given a provider retrieval whose provider is working
            let task = f.manager.retrieveImage(
                with: .provider(provider), options: [.waitForCache], completionHandler: collector.handler)
            XCTAssertNotNil(task, "a provider source has a task to cancel")
            await provider.started.wait(for: 1)
            // When its task is cancelled
            task?.cancel()
            await collector.wait(for: 1)
            // Then the caller gets dataProviderCancelled, the provider saw the cancel, and nothing is cached
            self.assertDataProviderCancelled(collector.results[0].failure, key: "cooperative")
            let stopped = await eventually(timeout: 5) { provider.stoppedByCancellation }
            XCTAssertTrue(stopped, "the provider's own task must be cancelled")
            XCTAssertFalse(f.cache.isCached(forKey: "cooperative"))
            XCTAssertEqual(collector.results.count, 1)
        }
    }

    func testCancellingTheSwiftTaskOfAnAsyncRetrievalThrowsDataProviderCancelled() async throws {
        try await withManager { f in
            let provider = CooperativeProvider(cacheKey: "async-cooperative")
            let manager = f.manager
            let retrieval = Task {
                try await manager.retrieveImage(with: .provider(provider), options: [.waitForCache])
            }
            await provider.started.wait(for: 1)
            retrieval.cancel()
            let result = await retrieval.result
            guard case .failure(let error) = result else {
                XCTFail("a cancelled retrieval produced an image")
                return
            }
            self.assertDataProviderCancelled(error, key: "async-cooperative")
            let stopped = await eventually(timeout: 5) { provider.stoppedByCancellation }
            XCTAssertTrue(stopped)
            XCTAssertFalse(f.cache.isCached(forKey: "async-cooperative"))
        }
    }

    func testAProviderThatIgnoresCancellationNeverDeliversALateImage() async throws {
        try await withManager { f in
            let provider = HeldCallbackProvider(cacheKey: "held")
            let collector = RetrievalCollector()
            let task = f.manager.retrieveImage(
                with: .provider(provider), options: [.waitForCache], completionHandler: collector.handler)
            await provider.started.wait(for: 1)
            // When cancelled while the provider holds its bytes, the caller hears at once (Kingfisher waits for the
            // provider to return first)
            task?.cancel()
            await collector.wait(for: 1)
            self.assertDataProviderCancelled(collector.results[0].failure, key: "held")
            // And when the provider returns afterwards, its bytes are dropped: no second callback, no cache entry
            provider.release()
            await provider.returned.wait(for: 1)
            let cached = await eventually(timeout: 0.5) { f.cache.isCached(forKey: "held") }
            XCTAssertFalse(cached)
            XCTAssertEqual(collector.results.count, 1)
        }
    }

    func testAnUncancelledProviderRetrievalStillSucceeds() async throws {
        try await withManager { f in
            let provider = HeldCallbackProvider(cacheKey: "released")
            let collector = RetrievalCollector()
            f.manager.retrieveImage(
                with: .provider(provider), options: [.waitForCache], completionHandler: collector.handler)
            await provider.started.wait(for: 1)
            provider.release()
            await collector.wait(for: 1)
            guard case .success(let value) = collector.results[0] else {
                XCTFail("expected an image, got \(collector.results[0])")
                return
            }
            XCTAssertEqual(value.image.pixelWidth, 64)
            XCTAssertTrue(f.cache.isCached(forKey: "released"))
        }
    }
}
