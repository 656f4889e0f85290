import Foundation
import Kingfisher
import KingfisherTestSupport
import KingfisherLocking
import Testing

@Suite(.timeLimit(.minutes(1)))
struct KingfisherManagerAlternativeSourcesTests {
    @Test func aFailingSourceFallsBackToTheNextAlternative() async throws {
        try await withManager { f in
            // Given a source that fails and two alternatives, the first of which works
            f.server.route("/broken.png", .status(404))
            f.server.route("/backup.png", .ok(Fixtures.png(width: 20, height: 10)))
            f.server.route("/unused.png", .ok(Fixtures.png()))
            let broken = f.server.url("/broken.png")
            let backup = f.server.url("/backup.png")
            let alternatives: [Source] = [.network(backup), .network(f.server.url("/unused.png"))]
            // When it is retrieved
            let result = try await f.manager.retrieveImage(
                with: broken, options: [.alternativeSources(alternatives), .waitForCache])
            // Then the first working alternative gives the image, cached under its own key
            #expect(result.image.kf.size == CGSize(width: 20, height: 10))
            #expect(result.source.url == backup)
            #expect(result.originalSource.url == broken)
            #expect(f.cache.isCached(forKey: backup.cacheKey))
            #expect(!f.cache.isCached(forKey: broken.cacheKey))
            #expect(f.server.hits("/broken.png") == 1)
            #expect(f.server.hits("/backup.png") == 1)
            #expect(f.server.hits("/unused.png") == 0)
        }
    }

    @Test func aCachedAlternativeIsServedFromTheCache() async throws {
        try await withManager { f in
            f.server.route("/broken.png", .status(500))
            f.server.route("/backup.png", .ok(Fixtures.png()))
            let backup = f.server.url("/backup.png")
            _ = try await f.manager.retrieveImage(with: backup, options: [.waitForCache])
            let result = try await f.manager.retrieveImage(
                with: f.server.url("/broken.png"), options: [.alternativeSources([.network(backup)])])
            #expect(result.cacheType == .memory)
            #expect(f.server.hits("/backup.png") == 1)
        }
    }

    @Test func whenEverySourceFailsTheErrorListsThemAll() async throws {
        try await withManager { f in
            f.server.route("/a.png", .status(404))
            let provider = FailingProvider(cacheKey: "failing")
            let result = await f.manager.callbackResult(
                .network(f.server.url("/a.png")), options: [.alternativeSources([.provider(provider)])])
            guard case .imageSettingError(reason: .alternativeSourcesExhausted(let failures)) = result.failure else {
                Issue.record("expected alternativeSourcesExhausted, got \(result)")
                return
            }
            #expect(failures.count == 2)
            #expect(failures.first?.source.url == f.server.url("/a.png"))
            #expect(failures.first?.error.isInvalidResponseStatusCode(404) == true)
            #expect(failures.last?.source.cacheKey == "failing")
            guard case .imageSettingError(reason: .dataProviderError) = failures.last?.error else {
                Issue.record("expected the provider's error last, got \(String(describing: failures.last?.error))")
                return
            }
            #expect(result.failure?.errorCode == 5004)
        }
    }

    @Test func withoutAlternativesTheErrorIsTheSourcesOwn() async throws {
        try await withManager { f in
            f.server.route("/a.png", .status(404))
            let result = await f.manager.callbackResult(
                .network(f.server.url("/a.png")), options: [.alternativeSources([])])
            #expect(result.failure?.isInvalidResponseStatusCode(404) == true)
        }
    }

    @Test func aCancellationIsNotPassedOnToAlternatives() async throws {
        try await withManager { f in
            f.server.route("/held.png", TestHTTPServer.Route(body: Fixtures.png(), held: true))
            f.server.route("/backup.png", .ok(Fixtures.png()))
            let collector = RetrievalCollector()
            let task = f.manager.retrieveImage(
                with: f.server.url("/held.png"),
                options: [.alternativeSources([.network(f.server.url("/backup.png"))])],
                completionHandler: collector.handler)
            await f.server.waitForRequests("/held.png")
            task?.cancel()
            await collector.wait(for: 1)
            f.server.release("/held.png")
            #expect(collector.results[0].failure?.isTaskCancelled == true)
            // A later retrieval through the same downloader finishes after any wrongly started alternative would have
            // been sent
            f.server.route("/later.png", .ok(Fixtures.png()))
            _ = try await f.manager.retrieveImage(with: f.server.url("/later.png"))
            #expect(f.server.hits("/backup.png") == 0)
            #expect(collector.results.count == 1)
        }
    }

    @Test func theAlternativesTaskIsReportedAndCancelsTheRest() async throws {
        try await withManager { f in
            f.server.route("/broken.png", .status(404))
            f.server.route("/held.png", TestHTTPServer.Route(body: Fixtures.png(), held: true))
            let updated = Locked<[DownloadTask?]>([])
            let collector = RetrievalCollector()
            let first = f.manager.retrieveImage(
                with: f.server.url("/broken.png"),
                options: [.alternativeSources([.network(f.server.url("/held.png"))]), .waitForCache],
                downloadTaskUpdated: { task in updated.withLock { $0.append(task) } },
                completionHandler: collector.handler)
            // When the alternative is downloading
            await f.server.waitForRequests("/held.png")
            let tasks = updated.withLock { $0 }
            #expect(tasks.count == 1)
            let alternativeTask = try #require(tasks.first ?? nil)
            #expect(alternativeTask !== first)
            // Then cancelling the reported task ends the retrieval with one cancellation and caches nothing
            alternativeTask.cancel()
            await collector.wait(for: 1)
            f.server.release("/held.png")
            #expect(collector.results[0].failure?.isTaskCancelled == true)
            #expect(!f.cache.isCached(forKey: f.server.url("/held.png").cacheKey))
        }
    }

    @Test func cancellingTheFirstTaskAfterAProviderFailedStopsTheAlternative() async throws {
        try await withManager { f in
            f.server.route("/held.png", TestHTTPServer.Route(body: Fixtures.png(), held: true))
            let updated = Locked<[DownloadTask?]>([])
            let collector = RetrievalCollector()
            // Given a failing provider whose alternative is downloading
            let first = f.manager.retrieveImage(
                with: .provider(FailingProvider(cacheKey: "failing")),
                options: [.alternativeSources([.network(f.server.url("/held.png"))]), .waitForCache],
                downloadTaskUpdated: { task in updated.withLock { $0.append(task) } },
                completionHandler: collector.handler)
            await f.server.waitForRequests("/held.png")
            // When the task the caller got first is cancelled
            first?.cancel()
            await collector.wait(for: 1)
            f.server.release("/held.png")
            // Then the retrieval ends with one cancellation, and the alternative's download is cancelled too
            #expect(collector.results[0].failure?.isTaskCancelled == true)
            let alternativeTask = try #require(updated.withLock { $0.first } ?? nil)
            #expect(alternativeTask.isCancelled)
            let later = try await f.manager.retrieveImage(with: f.server.url("/held.png"), options: [.waitForCache])
            #expect(later.cacheType == .none)
            #expect(collector.results.count == 1)
        }
    }

    @Test func cancellingTheReturnedTaskStopsAnAlternativesDownload() async throws {
        try await withManager { f in
            // Given a source that fails on the network and a slow alternative that is downloading
            f.server.route("/broken.png", .status(404))
            f.server.route("/slow.png", TestHTTPServer.Route(body: Fixtures.png(), held: true))
            let slow = f.server.url("/slow.png")
            let delegate = RecordingDelegate()
            f.downloader.delegate = delegate
            let updated = Locked<[DownloadTask?]>([])
            let collector = RetrievalCollector()
            let returned = f.manager.retrieveImage(
                with: f.server.url("/broken.png"),
                options: [.alternativeSources([.network(slow)]), .waitForCache],
                downloadTaskUpdated: { task in updated.withLock { $0.append(task) } },
                completionHandler: collector.handler)
            let first = try #require(returned)
            await f.server.waitForRequests("/slow.png")
            // When the task `retrieveImage` returned (whose own download has finished) is cancelled
            first.cancel()
            // Then the alternative's request ends with an error while the server still holds its response
            await delegate.finished.wait(for: 2)
            let slowFinishes = delegate.calls.withLock { $0.didFinish.filter { $0.url == slow } }
            #expect(slowFinishes.count == 1)
            #expect(slowFinishes.first?.failed == true)
            let alternativeTask = try #require(updated.withLock { $0.first } ?? nil)
            #expect(alternativeTask.isCancelled)
            // And the caller hears of the cancellation once, and nothing is cached
            await collector.wait(for: 1)
            f.server.release("/slow.png")
            #expect(collector.results.first?.failure?.isTaskCancelled == true)
            #expect(!f.cache.isCached(forKey: slow.cacheKey))
            let later = try await f.manager.retrieveImage(with: slow, options: [.waitForCache])
            #expect(later.cacheType == .none)
            #expect(f.server.hits("/slow.png") == 2)
            #expect(collector.results.count == 1)
        }
    }

    @Test func cancellingTheAsyncCallStopsAnAlternativesDownload() async throws {
        try await withManager { f in
            // Given an async retrieval whose first source failed and whose alternative is downloading
            f.server.route("/broken.png", .status(404))
            f.server.route("/slow.png", TestHTTPServer.Route(body: Fixtures.png(), held: true))
            let slow = f.server.url("/slow.png")
            let delegate = RecordingDelegate()
            f.downloader.delegate = delegate
            let manager = f.manager
            let broken = f.server.url("/broken.png")
            let retrieval = Task {
                try await manager.retrieveImage(with: broken, options: [.alternativeSources([.network(slow)])])
            }
            await f.server.waitForRequests("/slow.png")
            // When the calling task is cancelled
            retrieval.cancel()
            // Then it throws a cancellation and the alternative's request is cancelled before the server answers
            guard case .failure(let error) = await retrieval.result else {
                Issue.record("a cancelled retrieval returned an image")
                return
            }
            #expect((error as? KingfisherError)?.isTaskCancelled == true)
            await delegate.finished.wait(for: 2)
            #expect(delegate.calls.withLock { $0.didFinish.filter { $0.url == slow }.map(\.failed) } == [true])
            f.server.release("/slow.png")
            #expect(!f.cache.isCached(forKey: slow.cacheKey))
        }
    }
}
