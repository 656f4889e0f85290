import Foundation
import Kingfisher
import KingfisherTestSupport
import Synchronization
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
            let counts = Mutex<[Int]>([])
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
