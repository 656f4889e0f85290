import Foundation
import Kingfisher
import KingfisherTestSupport
import KingfisherLocking
import Testing

@Suite(.timeLimit(.minutes(1)))
struct KingfisherManagerCancellationTests {
    @Test func cancelBeforeTheDownloadStartsCallsBackOnceAndSendsNothing() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png()))
            let url = f.server.url("/a.png")
            let collector = RetrievalCollector()
            // When the retrieval is cancelled as soon as it is returned (still looking in the caches)
            let task = f.manager.retrieveImage(with: url, completionHandler: collector.handler)
            task?.cancel()
            await collector.wait(for: 1)
            // Then it ends with one cancellation error, and a later retrieval through the same downloader
            // shows no request was sent and nothing was cached
            #expect(collector.results[0].failure?.isTaskCancelled == true)
            f.server.route("/b.png", .ok(Fixtures.png()))
            _ = try await f.manager.retrieveImage(with: f.server.url("/b.png"), options: [.waitForCache])
            #expect(f.server.hits("/a.png") == 0)
            #expect(!f.cache.isCached(forKey: url.cacheKey))
            #expect(collector.results.count == 1)
        }
    }

    @Test func cancelDuringTheDownloadCallsBackOnceAndCachesNothing() async throws {
        try await withManager { f in
            // Given a response the server holds back
            f.server.route("/held.png", TestHTTPServer.Route(body: Fixtures.png(), held: true))
            let url = f.server.url("/held.png")
            let collector = RetrievalCollector()
            let task = f.manager.retrieveImage(
                with: url, options: [.waitForCache], completionHandler: collector.handler)
            await f.server.waitForRequests("/held.png")
            // When the retrieval is cancelled while the request is in flight, then the response is sent
            task?.cancel()
            await collector.wait(for: 1)
            f.server.release("/held.png")
            // Then there is exactly one callback, a cancellation, and nothing is cached
            #expect(collector.results[0].failure?.isTaskCancelled == true)
            // A retrieval of the same URL after the release starts a new request and is the only one cached
            let later = try await f.manager.retrieveImage(with: url, options: [.waitForCache])
            #expect(later.cacheType == .none)
            #expect(collector.results.count == 1)
        }
    }

    @Test func cancelledRetrievalWritesNothingWhileAnotherCallerOfTheSameURLFinishes() async throws {
        try await withManager { f in
            f.server.route("/held.png", TestHTTPServer.Route(body: Fixtures.png(), held: true))
            let url = f.server.url("/held.png")
            let processor = ResizingImageProcessor(referenceSize: CGSize(width: 8, height: 6))
            let cancelled = RetrievalCollector()
            let kept = RetrievalCollector()
            // Given two retrievals coalesced onto one request, one with a processor
            let task = f.manager.retrieveImage(
                with: url, options: [.processor(processor)], completionHandler: cancelled.handler)
            f.manager.retrieveImage(with: url, options: [.waitForCache], completionHandler: kept.handler)
            await f.server.waitForRequests("/held.png")
            // When the processed one is cancelled and the response then arrives
            task?.cancel()
            await cancelled.wait(for: 1)
            f.server.release("/held.png")
            await kept.wait(for: 1)
            // Then the other one is cached, the cancelled one's key never is
            #expect(cancelled.results[0].failure?.isTaskCancelled == true)
            #expect((try? kept.results[0].get()) != nil)
            #expect(f.cache.isCached(forKey: url.cacheKey))
            #expect(!f.cache.isCached(forKey: url.cacheKey, processorIdentifier: processor.identifier))
            #expect(cancelled.results.count == 1)
            #expect(f.server.hits("/held.png") == 1)
        }
    }

    @Test func cancellingTheAsyncCallerThrowsACancellation() async throws {
        try await withManager { f in
            f.server.route("/held.png", TestHTTPServer.Route(body: Fixtures.png(), held: true))
            let url = f.server.url("/held.png")
            let manager = f.manager
            let retrieval = Task { try await manager.retrieveImage(with: url, options: [.waitForCache]) }
            await f.server.waitForRequests("/held.png")
            retrieval.cancel()
            let outcome = await retrieval.result
            f.server.release("/held.png")
            guard case .failure(let error) = outcome else {
                Issue.record("expected a cancellation, got \(outcome)")
                return
            }
            #expect((error as? KingfisherError)?.isTaskCancelled == true)
            #expect(!f.cache.isCached(forKey: url.cacheKey))
        }
    }

    @Test func cancelAfterTheResultIsDeliveredDoesNothing() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png()))
            let collector = RetrievalCollector()
            let task = f.manager.retrieveImage(
                with: f.server.url("/a.png"), options: [.waitForCache], completionHandler: collector.handler)
            await collector.wait(for: 1)
            task?.cancel()
            #expect((try? collector.results[0].get()) != nil)
            #expect(task?.isCancelled == false)
            #expect(collector.results.count == 1)
        }
    }

    @Test func cancelRacesNeverLoseOrDuplicateACallback() async throws {
        try await withManager { f in
            let png = Fixtures.png(width: 8, height: 8)
            let rounds = 1000
            let results = Locked<[Int: [Result<RetrieveImageResult, KingfisherError>]]>([:])
            let counter = ResultlessCounter()
            // Each round, one after another, races a cancel against a provider retrieval that may or may not have finished
            for round in 0..<rounds {
                let source = Source.provider(RawImageDataProvider(data: png, cacheKey: "race-\(round)"))
                let task = f.manager.retrieveImage(with: source, options: [.cacheMemoryOnly]) { result in
                    results.withLock { $0[round, default: []].append(result) }
                    counter.increment()
                }
                // Cancel at once, or after a delay of up to a millisecond, so rounds end either way
                let delay = round % 20
                if delay > 0 { try? await Task.sleep(for: .microseconds(delay * 50)) }
                task?.cancel()
                // A lost callback must fail the test, not hang it
                let deadline = Date().addingTimeInterval(5)
                // Polled with short sleeps, not yields: a yielding loop keeps a thread of the cooperative pool (one
                // of two here) busy, and the retrievals it waits for, and the suite's other tests, get only the rest.
                while counter.count <= round, Date() < deadline { try? await Task.sleep(for: .microseconds(100)) }
                guard counter.count > round else {
                    Issue.record("round \(round) never called back")
                    return
                }
            }
            await counter.wait(for: rounds)
            let byRound = results.withLock { $0 }
            // Then every round called back exactly once; a cancelled round cached nothing, a finished one its image
            #expect(byRound.count == rounds)
            for round in 0..<rounds {
                guard let delivered = byRound[round], delivered.count == 1 else {
                    Issue.record("round \(round) called back \(byRound[round]?.count ?? 0) times")
                    continue
                }
                let cached = f.cache.memoryStorage.isCached(forKey: "race-\(round)")
                switch delivered[0] {
                case .success: #expect(cached, "round \(round) succeeded but is not cached")
                case .failure(let error):
                    #expect(error.isTaskCancelled)
                    #expect(!cached, "round \(round) was cancelled but wrote to the cache")
                }
            }
        }
    }

    @Test func cancelRacesOverTheNetworkNeverLoseACallbackOrWriteAfterACancel() async throws {
        try await withManager { f in
            let png = Fixtures.png(width: 8, height: 8)
            let rounds = 300
            let counter = ResultlessCounter()
            let results = Locked<[Int: [Result<RetrieveImageResult, KingfisherError>]]>([:])
            for round in 0..<rounds { f.server.route("/r\(round).png", .ok(png)) }
            // Each round cancels at a different moment: in the caches, the download, processing or the disk write
            for round in 0..<rounds {
                let task = f.manager.retrieveImage(
                    with: f.server.url("/r\(round).png"), options: [.waitForCache]
                ) { result in
                    results.withLock { $0[round, default: []].append(result) }
                    counter.increment()
                }
                let delay = round % 30
                if delay > 0 { try? await Task.sleep(for: .microseconds(delay * 40)) }
                task?.cancel()
                // A lost callback must fail the test, not hang it
                let deadline = Date().addingTimeInterval(5)
                // Polled with short sleeps, not yields: a yielding loop keeps a thread of the cooperative pool (one
                // of two here) busy, and the retrievals it waits for, and the suite's other tests, get only the rest.
                while counter.count <= round, Date() < deadline { try? await Task.sleep(for: .microseconds(100)) }
                guard counter.count > round else {
                    Issue.record("round \(round) never called back")
                    return
                }
            }
            let byRound = results.withLock { $0 }
            for round in 0..<rounds {
                guard let delivered = byRound[round], delivered.count == 1 else {
                    Issue.record("round \(round) called back \(byRound[round]?.count ?? 0) times")
                    continue
                }
                let key = f.server.url("/r\(round).png").cacheKey
                switch delivered[0] {
                case .success:
                    // Committed before the cancel: in memory, and on disk since the completion waited for it
                    #expect(f.cache.memoryStorage.isCached(forKey: key))
                    #expect(f.cache.diskStorage.isCached(forKey: key))
                case .failure(let error):
                    #expect(error.isTaskCancelled, "round \(round): \(error)")
                    #expect(!f.cache.isCached(forKey: key), "round \(round) was cancelled but wrote to the cache")
                }
            }
        }
    }
}
