import Foundation
import Kingfisher
import KingfisherTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Bad input and faults from a real server: every one ends in a `KingfisherError` that says what happened.
@Suite(.timeLimit(.minutes(1)))
struct ImageDownloaderFaultTests {
    @Test func connectionRefused() async throws {
        // Given a port nobody listens on (and no other test's server can be given meanwhile)
        let refusing = try RefusingPort()
        try await withDownloader { _, downloader in
            let error = await downloader.result(refusing.url("/a.png")).error
            guard case .responseError(reason: .URLSessionError) = error else {
                Issue.record("expected a transport error, got \(String(describing: error))")
                return
            }
        }
    }

    @Test func connectionResetMidBody() async throws {
        try await withDownloader { server, downloader in
            let png = Fixtures.png(width: 128, height: 128)
            server.route("/cut.png", .init(body: png, closeAfterBodyBytes: png.count / 2))
            let error = await downloader.result(server.url("/cut.png")).error
            guard case .responseError(reason: .URLSessionError) = error else {
                Issue.record("expected a transport error, got \(String(describing: error))")
                return
            }
        }
    }

    @Test func serverThatNeverAnswersTimesOut() async throws {
        try await withDownloader { server, downloader in
            server.route("/silent.png", .init(neverRespond: true))
            downloader.downloadTimeout = 0.3
            let started = ContinuousClock.now
            let error = await downloader.result(server.url("/silent.png")).error
            guard case .responseError(reason: .requestTimedOut(_, let timeout)) = error else {
                Issue.record("expected requestTimedOut, got \(String(describing: error))")
                return
            }
            #expect(timeout == 0.3)
            // The error carries the configured timeout; the time is only a safety net (a loaded machine once took
            // 10.2 s to report this 0.3 s timeout)
            #expect(ContinuousClock.now - started < .seconds(45))
            #expect(error?.errorCode == 2102)
        }
    }

    @Test func redirectLoopIsDetected() async throws {
        try await withDownloader { server, downloader in
            server.route("/a", .redirect(to: "/b"))
            server.route("/b", .redirect(to: "/a"))
            let error = await downloader.result(server.url("/a")).error
            guard case .responseError(reason: .tooManyRedirects(let urls, _)) = error else {
                Issue.record("expected tooManyRedirects, got \(String(describing: error))")
                return
            }
            #expect(urls.map(\.path) == ["/a", "/b", "/a"])
            #expect(server.hits("/a") == 1)
            #expect(server.hits("/b") == 1)
        }
    }

    @Test func redirectToAFileURLIsRefused() async throws {
        try await withDownloader { server, downloader in
            server.route("/sneaky.png", .redirect(to: "file:///etc/passwd"))
            let error = await downloader.result(server.url("/sneaky.png")).error
            guard case .requestError(reason: .invalidURL(let request)) = error else {
                Issue.record("expected invalidURL, got \(String(describing: error))")
                return
            }
            #expect(request.url?.scheme == "file")
        }
    }

    @Test func redirectChainLongerThanTheLimitFails() async throws {
        try await withDownloader(configuration: .init(maximumRedirects: 3)) { server, downloader in
            for hop in 0..<6 { server.route("/r\(hop)", .redirect(to: "/r\(hop + 1)")) }
            let error = await downloader.result(server.url("/r0")).error
            #expect(error?.errorCode == 2103)
            #expect(server.totalHits == 4)
        }
    }

    @Test func lyingContentLengthFails() async throws {
        try await withDownloader { server, downloader in
            let png = Fixtures.png()
            server.route("/liar.png", .init(body: png, contentLength: Int64(png.count) + 10_000))
            let error = await downloader.result(server.url("/liar.png")).error
            guard case .responseError(reason: .URLSessionError) = error else {
                Issue.record("expected a transport error, got \(String(describing: error))")
                return
            }
        }
    }

    @Test func tenGigabyteContentLengthIsRejectedOnTheHeader() async throws {
        try await withDownloader { server, downloader in
            let tenGB: Int64 = 10 * 1024 * 1024 * 1024
            server.route("/huge.png", .init(body: Data(repeating: 0xFF, count: 1024), contentLength: tenGB))
            let progress = ProgressRecorder()
            let collector = ResultCollector()
            downloader.downloadImage(
                with: server.url("/huge.png"), progressBlock: progress.block, completionHandler: collector.handler)
            await collector.wait(for: 1)
            guard
                case .responseError(reason: .responseTooLarge(_, let limit, let declared)) = collector.results[0].error
            else {
                Issue.record("expected responseTooLarge, got \(collector.results[0])")
                return
            }
            #expect(declared == tenGB)
            #expect(limit == 50 * 1024 * 1024)
            #expect(progress.reports.isEmpty)
        }
    }

    @Test func bodyGrowingPastTheLimitIsStopped() async throws {
        try await withDownloader(configuration: .init(maximumResponseSize: 10_000)) { server, downloader in
            // Chunked: no Content-Length to reject up front
            server.route("/stream", .init(body: Data(repeating: 7, count: 50_000), chunkSize: 1000))
            let error = await downloader.result(server.url("/stream")).error
            guard case .responseError(reason: .responseTooLarge(_, 10_000, nil)) = error else {
                Issue.record("expected responseTooLarge while streaming, got \(String(describing: error))")
                return
            }
        }
    }

    @Test func errorsHaveActionableDescriptions() async throws {
        try await withDownloader { server, downloader in
            server.route("/missing.png", .status(404))
            let error = try #require(await downloader.result(server.url("/missing.png")).error)
            #expect(error.description.contains("404"))
            #expect(error.description.contains("/missing.png"))
        }
    }
}
