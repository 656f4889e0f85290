import Foundation
import Kingfisher
import KingfisherTestSupport
import KingfisherLocking
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Request modifiers, redirect handlers and the delegate, against the real server.
@Suite(.timeLimit(.minutes(1)))
struct ImageDownloaderHooksTests {
    @Test func modifierChangesTheRequestOnTheWire() async throws {
        try await withDownloader { server, downloader in
            server.route("/a.png", .ok(Fixtures.png()))
            let modifier = AnyModifier { request in
                var request = request
                request.setValue("Bearer abc", forHTTPHeaderField: "Authorization")
                return request
            }
            _ = try await downloader.downloadImage(with: server.url("/a.png"), options: [.requestModifier(modifier)])
            let headers = try #require(server.lastRequestHeaders("/a.png"))
            #expect(headers.contains { $0.0.lowercased() == "authorization" && $0.1 == "Bearer abc" })
        }
    }

    @Test func modifierReturningNilFailsWithEmptyRequest() async throws {
        try await withDownloader { server, downloader in
            server.route("/a.png", .ok(Fixtures.png()))
            let error = await downloader.result(
                server.url("/a.png"), options: [.requestModifier(AnyModifier { _ in nil })]
            ).error
            guard case .requestError(reason: .emptyRequest) = error else {
                Issue.record("expected emptyRequest, got \(String(describing: error))")
                return
            }
            #expect(server.totalHits == 0)
        }
    }

    @Test func modifierCanRedirectToAnotherURL() async throws {
        try await withDownloader { server, downloader in
            server.route("/real.png", .ok(Fixtures.png(width: 10, height: 10)))
            let target = server.url("/real.png")
            let modifier = AnyModifier { request in
                var request = request
                request.url = target
                return request
            }
            let result = try await downloader.downloadImage(
                with: server.url("/alias.png"), options: [.requestModifier(modifier)])
            #expect(result.image.kf.size == CGSize(width: 10, height: 10))
            #expect(server.hits("/alias.png") == 0)
            #expect(server.hits("/real.png") == 1)
            // As in Kingfisher, the result names the URL of the request sent
            #expect(result.url == target)
        }
    }

    @Test func redirectsAreFollowedByDefault() async throws {
        try await withDownloader { server, downloader in
            server.route("/old.png", .redirect(to: "/new.png", status: 301))
            server.route("/new.png", .ok(Fixtures.png()))
            let result = try await downloader.downloadImage(with: server.url("/old.png"))
            #expect(result.metrics?.redirectCount == 1)
            #expect(server.hits("/new.png") == 1)
        }
    }

    @Test func redirectHandlerCanChangeTheTarget() async throws {
        try await withDownloader { server, downloader in
            server.route("/old.png", .redirect(to: "/new.png"))
            server.route("/new.png", .status(404))
            server.route("/other.png", .ok(Fixtures.png()))
            let other = server.url("/other.png")
            let seen = Locked<[Int]>([])
            let handler = AnyRedirectHandler { task, response, newRequest, completion in
                seen.withLock { $0.append(response.statusCode) }
                #expect(newRequest.url?.path == "/new.png")
                #expect(task.originalURL?.path == "/old.png")
                var changed = newRequest
                changed.url = other
                completion(changed)
            }
            _ = try await downloader.downloadImage(with: server.url("/old.png"), options: [.redirectHandler(handler)])
            #expect(seen.withLock { $0 } == [302])
            #expect(server.hits("/new.png") == 0)
            #expect(server.hits("/other.png") == 1)
        }
    }

    @Test func redirectHandlerReturningNilStopsAtTheRedirect() async throws {
        try await withDownloader { server, downloader in
            server.route("/old.png", .redirect(to: "/new.png"))
            server.route("/new.png", .ok(Fixtures.png()))
            let handler = AnyRedirectHandler { _, _, _, completion in completion(nil) }
            let error = await downloader.result(server.url("/old.png"), options: [.redirectHandler(handler)]).error
            // The 302 itself is the response: a valid status with an empty body
            guard case .processorError(reason: .processingFailed) = error,
                case .emptyImageData? = error?.underlyingReason
            else {
                Issue.record("expected processingFailed over emptyImageData, got \(String(describing: error))")
                return
            }
            #expect(server.hits("/new.png") == 0)
        }
    }

    @Test func delegateHearsExactlyOneFinishPerDownload() async throws {
        try await withDownloader { server, downloader in
            let delegate = RecordingDelegate()
            downloader.delegate = delegate
            server.route("/a.png", .init(body: Fixtures.png(), held: true))
            let collector = ResultCollector()
            for _ in 0..<5 {
                downloader.downloadImage(with: server.url("/a.png"), completionHandler: collector.handler)
            }
            await server.waitForRequests("/a.png")
            server.release("/a.png")
            await collector.wait(for: 5)
            let calls = delegate.calls.withLock { $0 }
            #expect(calls.willDownload == [server.url("/a.png")])
            #expect(calls.didFinish.count == 1)
            #expect(calls.didFinish.first?.status == 200)
            #expect(calls.didFinish.first?.failed == false)
            #expect(calls.didDownloadImage == 5)
        }
    }

    @Test func delegateCanReplaceTheData() async throws {
        try await withDownloader { server, downloader in
            let replacement = Fixtures.png(width: 7, height: 9)
            let delegate = RecordingDelegate(replacementData: .some(replacement))
            downloader.delegate = delegate
            server.route("/a.png", .ok(Fixtures.png()))
            let result = try await downloader.downloadImage(with: server.url("/a.png"))
            #expect(result.image.kf.size == CGSize(width: 7, height: 9))
            #expect(result.originalData == replacement)
        }
    }

    @Test func delegateReturningNilDataFails() async throws {
        try await withDownloader { server, downloader in
            let delegate = RecordingDelegate(replacementData: .some(nil))
            downloader.delegate = delegate
            server.route("/a.png", .ok(Fixtures.png()))
            let error = await downloader.result(server.url("/a.png")).error
            #expect(error?.errorCode == 2004)
            // The did-finish call carries that failure, exactly once (as Kingfisher reports the modifier's failure)
            await delegate.finished.wait(for: 1)
            let calls = delegate.calls.withLock { $0 }
            #expect(calls.didFinish.count == 1)
            #expect(calls.didFinish.first?.failed == true)
            #expect(calls.didFinish.first?.status == 200)
            #expect(calls.didFinishErrorCodes == [2004])
            #expect(calls.didDownloadImage == 0)
        }
    }

    @Test func delegateDecidesValidStatusCodes() async throws {
        try await withDownloader { server, downloader in
            let delegate = RecordingDelegate(validStatusCodes: [201])
            downloader.delegate = delegate
            server.route("/ok.png", .ok(Fixtures.png()))
            server.route("/created.png", .init(status: 201, body: Fixtures.png()))
            let error = await downloader.result(server.url("/ok.png")).error
            #expect(error?.isInvalidResponseStatusCode(200) == true)
            _ = try await downloader.downloadImage(with: server.url("/created.png"))
        }
    }

    @Test func delegateCanCancelOnTheResponse() async throws {
        try await withDownloader { server, downloader in
            let delegate = CancellingDelegate()
            downloader.delegate = delegate
            server.route("/a.png", .ok(Fixtures.png()))
            let error = await downloader.result(server.url("/a.png")).error
            guard case .responseError(reason: .cancelledByDelegate(let response)) = error else {
                Issue.record("expected cancelledByDelegate, got \(String(describing: error))")
                return
            }
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(error?.errorCode == 2006)
        }
    }

    @Test func releasingANamedDownloaderShutsItsClientDown() async throws {
        let server = try await TestHTTPServer.start()
        server.route("/a.png", .ok(Fixtures.png()))
        // A downloader dropped without shutdown() must not trip AsyncHTTPClient's "not shut down" check.
        for _ in 0..<3 {
            let downloader = ImageDownloader(name: "dropped")
            _ = try await downloader.downloadImage(with: server.url("/a.png"))
        }
        #expect(server.hits("/a.png") == 3)
        try await server.shutdown()
    }
}

final class CancellingDelegate: ImageDownloaderDelegate {
    func imageDownloader(_ downloader: ImageDownloader, didReceive response: URLResponse) async
        -> URLSession.ResponseDisposition
    {
        .cancel
    }
}
