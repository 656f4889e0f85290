import Foundation
import Kingfisher
import KingfisherTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Servers that close connections without saying so: a GET whose connection turns out closed before any response
/// byte arrives is sent once more, on another connection; nothing else is sent twice. (The time limit is a safety
/// net: 240 downloads beside two busy processes once took more than a minute.)
@Suite(.timeLimit(.minutes(3)))
struct ImageDownloaderClosedConnectionTests {
    /// Every hop of a 10-redirect chain answers, then hangs up without `Connection: close`, so the client often
    /// sends the next hop on the connection the server is closing.
    @Test func redirectChainOverConnectionsClosedAfterEachHop() async throws {
        try await withDownloader { server, downloader in
            for hop in 0..<10 {
                var redirect = TestHTTPServer.Route.redirect(to: "/r\(hop + 1)")
                redirect.closeAfterResponse = true
                server.route("/r\(hop)", redirect)
            }
            var image = TestHTTPServer.Route.ok(Fixtures.png(), contentType: "image/png")
            image.closeAfterResponse = true
            server.route("/r10", image)
            let runs = 10
            var failures: [String] = []
            for _ in 0..<runs {
                if let error = await downloader.result(server.url("/r0")).error {
                    failures.append(error.description)
                }
            }
            #expect(failures.isEmpty, "\(failures.count) of \(runs) chains failed: \(failures.first ?? "")")
            // Each hop was asked for at most twice per run (once, plus one resend on a closed connection).
            for hop in 0...10 {
                #expect(server.hits("/r\(hop)") <= 2 * runs)
            }
        }
    }

    /// Four downloads at a time from an origin that hangs up after every answer: the pool keeps handing out
    /// connections the server has closed (a resend on the pool can land on another dead one), yet every download
    /// succeeds, as curl's do.
    @Test func concurrentDownloadsFromAnOriginThatClosesEveryConnection() async throws {
        try await withDownloader { server, downloader in
            for lane in 0..<4 {
                var image = TestHTTPServer.Route.ok(Fixtures.png(), contentType: "image/png")
                image.closeAfterResponse = true
                server.route("/plain\(lane).png", image)
                for hop in 0..<10 {
                    var redirect = TestHTTPServer.Route.redirect(to: "/c\(lane)-\(hop + 1)")
                    redirect.closeAfterResponse = true
                    server.route("/c\(lane)-\(hop)", redirect)
                }
                server.route("/c\(lane)-10", image)
            }
            let failures = await withTaskGroup(of: [String].self) { group in
                for lane in 0..<4 {
                    group.addTask {
                        var failed: [String] = []
                        for round in 0..<60 {
                            let path = round.isMultiple(of: 6) ? "/c\(lane)-0" : "/plain\(lane).png"
                            if let error = await downloader.result(server.url(path)).error {
                                failed.append("\(path): \(error.description)")
                            }
                        }
                        return failed
                    }
                }
                return await group.reduce(into: []) { $0 += $1 }
            }
            #expect(failures.isEmpty, "\(failures.count) of 240 downloads failed: \(failures.first ?? "")")
        }
    }

    @Test func connectionClosedBeforeTheAnswerIsResentOnce() async throws {
        try await withDownloader { server, downloader in
            server.route(
                "/flaky.png",
                sequence: [.init(dropConnection: true), .ok(Fixtures.png(), contentType: "image/png")])
            let result = await downloader.result(server.url("/flaky.png"))
            #expect(result.error == nil, "\(String(describing: result.error))")
            #expect(server.hits("/flaky.png") == 2)
        }
    }

    @Test func connectionClosedAgainFailsAfterOneResend() async throws {
        try await withDownloader { server, downloader in
            server.route("/gone.png", .init(dropConnection: true))
            let error = await downloader.result(server.url("/gone.png")).error
            guard case .responseError(reason: .URLSessionError) = error else {
                Issue.record("expected a transport error, got \(String(describing: error))")
                return
            }
            #expect(server.hits("/gone.png") == 2)
        }
    }

    @Test func postIsNeverResent() async throws {
        try await withDownloader { server, downloader in
            server.route("/post.png", .init(dropConnection: true))
            let modifier = AnyModifier { request in
                var request = request
                request.httpMethod = "POST"
                return request
            }
            let error = await downloader.result(server.url("/post.png"), options: [.requestModifier(modifier)]).error
            #expect(error != nil)
            #expect(server.hits("/post.png") == 1)
        }
    }

    @Test func connectionClosedMidBodyIsNotResent() async throws {
        try await withDownloader { server, downloader in
            let png = Fixtures.png(width: 128, height: 128)
            server.route("/cut.png", .init(body: png, closeAfterBodyBytes: png.count / 2))
            let error = await downloader.result(server.url("/cut.png")).error
            #expect(error != nil)
            #expect(server.hits("/cut.png") == 1)
        }
    }
}
