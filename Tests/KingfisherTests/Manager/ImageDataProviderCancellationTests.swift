import Foundation
@testable import Kingfisher
import KingfisherLocking
import XCTest

/// Cancelling a provider-backed retrieval reports Kingfisher 8.11's `.requestError(reason: .dataProviderCancelled)`,
/// through the returned `DownloadTask` and through a cancelled Swift task, and stops a provider that honours
/// cancellation before the cancel is reported; one that ignores it is waited for at most
/// `ImageRetrieval.providerCancellationGrace` (one second).
final class ImageDataProviderCancellationTests: XCTestCase {
    /// A provider that works in short steps, checking for cancellation before each (Kingfisher's
    /// `CooperativeAsyncProvider`, in our words): without a cancel it would take 20 s.
    private final class SteppingProvider: ImageDataProvider {
        let cacheKey: String
        let steps = 1_000
        let stepsDone = ResultlessCounter()
        private let sawCancellation = Locked(false)

        init(cacheKey: String) { self.cacheKey = cacheKey }

        var stoppedByCancellation: Bool { sawCancellation.withLock { $0 } }

        func data() async throws -> Data {
            do {
                for _ in 0..<steps {
                    try Task.checkCancellation()
                    try await Task.sleep(for: .milliseconds(20))
                    stepsDone.increment()
                }
            } catch is CancellationError {
                sawCancellation.withLock { $0 = true }
                throw CancellationError()
            }
            return Fixtures.png()
        }
    }

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
            let stoppedWhenTold = Locked<Bool?>(nil)
            let task = f.manager.retrieveImage(with: .provider(provider), options: [.waitForCache]) { result in
                stoppedWhenTold.withLock { $0 = provider.stoppedByCancellation }
                collector.handler(result)
            }
            XCTAssertNotNil(task, "a provider source has a task to cancel")
            await provider.started.wait(for: 1)
            // When its task is cancelled
            task?.cancel()
            await collector.wait(for: 1)
            // Then the caller gets dataProviderCancelled once the provider has seen the cancel, and nothing is cached
            self.assertDataProviderCancelled(collector.results[0].failure, key: "cooperative")
            XCTAssertEqual(stoppedWhenTold.withLock { $0 }, true, "the provider's own task must be cancelled first")
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
            XCTAssertTrue(provider.stoppedByCancellation, "the provider saw the cancel before the retrieval threw")
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
            // When cancelled while the provider holds its bytes, the caller hears once the grace has run out, with
            // the provider still holding them (Kingfisher waits for the provider to return)
            let cancelled = ContinuousClock.now
            task?.cancel()
            await collector.wait(for: 1)
            let waited = ContinuousClock.now - cancelled
            XCTAssertGreaterThanOrEqual(waited, .milliseconds(900), "the provider is given its grace")
            XCTAssertLessThan(waited, .seconds(30), "a provider that never returns is not waited for")
            XCTAssertEqual(provider.returned.count, 0)
            self.assertDataProviderCancelled(collector.results[0].failure, key: "held")
            // And when the provider returns afterwards, its bytes are dropped: no second callback, no cache entry
            provider.release()
            await provider.returned.wait(for: 1)
            let cached = await eventually(timeout: 0.5) { f.cache.isCached(forKey: "held") }
            XCTAssertFalse(cached)
            XCTAssertEqual(collector.results.count, 1)
        }
    }

    // Kingfisher's testCancelPropagatesIntoCooperativeAsyncProvider, in our words, through both ways to cancel: a
    // provider that checks for cancellation between steps has thrown by the time the caller hears of the cancel.

    func testASteppingProviderHasStoppedWhenTheCancelOfItsDownloadTaskIsReported() async throws {
        try await withManager { f in
            let provider = SteppingProvider(cacheKey: "stepping")
            let stoppedWhenTold = Locked<Bool?>(nil)
            let collector = RetrievalCollector()
            // Given a provider retrieval whose provider has made progress
            let task = f.manager.retrieveImage(with: .provider(provider)) { result in
                stoppedWhenTold.withLock { $0 = provider.stoppedByCancellation }
                collector.handler(result)
            }
            XCTAssertNotNil(task, "a provider source has a task to cancel")
            await provider.stepsDone.wait(for: 1)
            // When its DownloadTask is cancelled
            task?.cancel()
            await collector.wait(for: 1)
            // Then the failure is dataProviderCancelled, and the provider had seen the cancel when it came
            self.assertDataProviderCancelled(collector.results[0].failure, key: "stepping")
            XCTAssertEqual(stoppedWhenTold.withLock { $0 }, true, "the cancel was reported before the provider saw it")
            XCTAssertGreaterThanOrEqual(provider.stepsDone.count, 1)
            XCTAssertLessThan(provider.stepsDone.count, provider.steps, "the provider stopped early")
            XCTAssertEqual(collector.results.count, 1)
        }
    }

    func testASteppingProviderHasStoppedWhenTheCancelledSwiftTaskThrows() async throws {
        try await withManager { f in
            let provider = SteppingProvider(cacheKey: "stepping-async")
            let manager = f.manager
            let retrieval = Task { try await manager.retrieveImage(with: .provider(provider)) }
            await provider.stepsDone.wait(for: 1)
            // When the Swift task of the async retrieval is cancelled
            retrieval.cancel()
            let result = await retrieval.result
            // Then it throws dataProviderCancelled, and the provider had seen the cancel already
            let stoppedWhenTold = provider.stoppedByCancellation
            guard case .failure(let error) = result else {
                XCTFail("a cancelled retrieval produced an image")
                return
            }
            self.assertDataProviderCancelled(error, key: "stepping-async")
            XCTAssertTrue(stoppedWhenTold, "the cancel was reported before the provider saw it")
            XCTAssertLessThan(provider.stepsDone.count, provider.steps, "the provider stopped early")
        }
    }

    func testLeavingALoadOthersStillWaitForReportsAtOnceAndLeavesTheProviderAlone() async throws {
        try await withManager { f in
            let provider = HeldCallbackProvider(cacheKey: "shared-held")
            let leaving = RetrievalCollector()
            let staying = RetrievalCollector()
            // Given two retrievals sharing one provider load
            let first = f.manager.retrieveImage(with: .provider(provider), completionHandler: leaving.handler)
            f.manager.retrieveImage(with: .provider(provider), completionHandler: staying.handler)
            await provider.started.wait(for: 1)
            let joined = await eventually(timeout: 10) { f.manager.pipeline.providerLoads.waitingCount == 2 }
            XCTAssertTrue(joined)
            // When one of them is cancelled
            let cancelled = ContinuousClock.now
            first?.cancel()
            await leaving.wait(for: 1)
            // Then it hears at once (the load goes on for the other: there is nothing to wait for)
            XCTAssertLessThan(ContinuousClock.now - cancelled, .milliseconds(900))
            self.assertDataProviderCancelled(leaving.results[0].failure, key: "shared-held")
            // And the other gets the image when the provider hands it over
            provider.release()
            await staying.wait(for: 1)
            XCTAssertNotNil(try? staying.results[0].get().image)
            XCTAssertEqual(provider.started.count, 1)
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
