import Foundation
import Kingfisher
import KingfisherTestSupport
import KingfisherLocking
import Testing

@Suite(.timeLimit(.minutes(1)))
struct ImageDownloaderRetryTests {
    @Test func fiveHundredThenTwoHundredWithRetries() async throws {
        try await withDownloader { server, downloader in
            // Given a server failing twice, then succeeding
            server.route("/flaky.png", sequence: [.status(500), .status(500), .ok(Fixtures.png())])
            let strategy = DelayRetryStrategy(maxRetryCount: 3, retryInterval: .seconds(0))
            // When downloading with up to 3 retries
            let result = try await downloader.downloadImage(
                with: server.url("/flaky.png"), options: [.retryStrategy(strategy)])
            // Then exactly three requests were made
            #expect(result.image.kf.size == CGSize(width: 64, height: 48))
            #expect(server.hits("/flaky.png") == 3)
        }
    }

    @Test func retriesStopAtTheLimit() async throws {
        try await withDownloader { server, downloader in
            server.route("/flaky.png", sequence: [.status(500), .status(500), .ok(Fixtures.png())])
            let strategy = DelayRetryStrategy(maxRetryCount: 1, retryInterval: .accumulated(0.01))
            let error = await downloader.result(server.url("/flaky.png"), options: [.retryStrategy(strategy)]).error
            #expect(error?.isInvalidResponseStatusCode(500) == true)
            #expect(server.hits("/flaky.png") == 2)
        }
    }

    @Test func customIntervalSeesTheRetryCount() async throws {
        try await withDownloader { server, downloader in
            server.route("/down.png", .status(503))
            let counts = Locked<[Int]>([])
            let strategy = DelayRetryStrategy(
                maxRetryCount: 3,
                retryInterval: .custom { count in
                    counts.withLock { $0.append(count) }
                    return 0
                })
            _ = await downloader.result(server.url("/down.png"), options: [.retryStrategy(strategy)])
            #expect(counts.withLock { $0 } == [0, 1, 2])
            #expect(server.hits("/down.png") == 4)
        }
    }

    @Test func cancellationIsNotRetried() async throws {
        try await withDownloader { server, downloader in
            server.route("/a.png", .init(body: Fixtures.png(), held: true))
            let strategy = DelayRetryStrategy(maxRetryCount: 5, retryInterval: .seconds(0))
            let collector = ResultCollector()
            let task = downloader.downloadImage(
                with: server.url("/a.png"), options: [.retryStrategy(strategy)], completionHandler: collector.handler)
            await server.waitForRequests("/a.png")
            task.cancel()
            await collector.wait(for: 1)
            #expect(collector.results[0].error?.isTaskCancelled == true)
            server.release("/a.png")
            #expect(server.hits("/a.png") == 1)
        }
    }

    @Test func networkRetryStrategyRetriesConnectionErrorsOnly() async throws {
        try await withDownloader { server, downloader in
            // A 404 is not a connection error: one request, no retry
            server.route("/missing.png", .status(404))
            let strategy = NetworkRetryStrategy(timeoutInterval: 5)
            let error = await downloader.result(server.url("/missing.png"), options: [.retryStrategy(strategy)]).error
            #expect(error?.isInvalidResponseStatusCode(404) == true)
            #expect(server.hits("/missing.png") == 1)
            // A connection cut mid-body is: it is retried and the second answer succeeds
            let png = Fixtures.png()
            server.route("/cut.png", sequence: [.init(body: png, closeAfterBodyBytes: 10), .ok(png)])
            let result = try await downloader.downloadImage(
                with: server.url("/cut.png"), options: [.retryStrategy(strategy)])
            #expect(result.originalData == png)
            #expect(server.hits("/cut.png") == 2)
        }
    }
}

/// The retry strategy is asked about every failure of a download, as in Kingfisher, not only response errors.
@Suite(.timeLimit(.minutes(1)))
struct RetryOnEveryFailureTests {
    /// Records each context it is asked about, then retries while `maxRetryCount` allows.
    final class RecordingStrategy: RetryStrategy {
        let maxRetryCount: Int
        private let contexts = Locked<[(retried: Int, code: Int)]>([])

        init(maxRetryCount: Int) {
            self.maxRetryCount = maxRetryCount
        }

        var asked: [(retried: Int, code: Int)] { contexts.withLock { $0 } }

        func retry(context: RetryContext, retryHandler: @escaping @Sendable (RetryDecision) -> Void) {
            contexts.withLock { $0.append((context.retriedCount, context.error.errorCode)) }
            retryHandler(context.retriedCount < maxRetryCount ? .retry(userInfo: nil) : .stop)
        }
    }

    @Test func anEmptyBodyIsRetried() async throws {
        try await withDownloader { server, downloader in
            // Given a server that answers 200 with no body once, then with the image
            server.route("/a.png", sequence: [.ok(Data()), .ok(Fixtures.png())])
            let strategy = RecordingStrategy(maxRetryCount: 2)
            // When downloading with the strategy
            let result = try await downloader.downloadImage(
                with: server.url("/a.png"), options: [.retryStrategy(strategy)])
            // Then the strategy was asked about the empty body (processingFailed) and the retry succeeded
            #expect(result.image.kf.size == CGSize(width: 64, height: 48))
            #expect(strategy.asked.map(\.code) == [4001])
            #expect(server.hits("/a.png") == 2)
        }
    }

    @Test func aProcessingFailureIsRetriedUntilTheStrategyStops() async throws {
        try await withDownloader { server, downloader in
            server.route("/a.png", .ok(Fixtures.png()))
            let strategy = RecordingStrategy(maxRetryCount: 2)
            let error = await downloader.result(
                server.url("/a.png"), options: [.retryStrategy(strategy), .processor(FailingProcessor())]
            ).error
            #expect(error?.errorCode == 4001)
            #expect(strategy.asked.map(\.retried) == [0, 1, 2])
            #expect(server.hits("/a.png") == 3)
        }
    }

    @Test func delayRetryStrategyRetriesANonImageBody() async throws {
        try await withDownloader { server, downloader in
            server.route("/a.png", sequence: [.ok(Data("<html/>".utf8)), .ok(Fixtures.png())])
            let strategy = DelayRetryStrategy(maxRetryCount: 1, retryInterval: .seconds(0))
            _ = try await downloader.downloadImage(with: server.url("/a.png"), options: [.retryStrategy(strategy)])
            #expect(server.hits("/a.png") == 2)
        }
    }

    @Test func thePrefetcherHonoursTheStrategyTheSameWay() async throws {
        try await withManager { f in
            f.server.route("/a.png", sequence: [.ok(Data()), .ok(Fixtures.png())])
            let strategy = RecordingStrategy(maxRetryCount: 1)
            let done = ResultlessCounter()
            let outcome = Locked<(completed: Int, failed: Int)>((0, 0))
            let prefetcher = ImagePrefetcher(
                urls: [f.server.url("/a.png")],
                options: [.retryStrategy(strategy), .waitForCache],
                completionHandler: { _, failed, completed in
                    outcome.withLock { $0 = (completed.count, failed.count) }
                    done.increment()
                }, manager: f.manager)
            prefetcher.start()
            await done.wait(for: 1)
            #expect(outcome.withLock { $0 }.completed == 1)
            #expect(outcome.withLock { $0 }.failed == 0)
            #expect(strategy.asked.map(\.code) == [4001])
            #expect(f.server.hits("/a.png") == 2)
        }
    }
}
