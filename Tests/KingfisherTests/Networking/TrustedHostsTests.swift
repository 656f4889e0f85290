import Foundation
import Kingfisher
import KingfisherTestSupport
import KingfisherLocking
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A self-signed certificate for `localhost` made on the spot with the `openssl` command (installed by
/// scripts/bootstrap), valid for a day.
func selfSignedCertificate(in directory: URL) throws -> (certificateChain: URL, privateKey: URL) {
    let certificate = directory.appendingPathComponent("cert.pem")
    let key = directory.appendingPathComponent("key.pem")
    let openssl = try #require(
        ["/usr/bin/openssl", "/usr/local/bin/openssl", "/opt/homebrew/bin/openssl"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }, "openssl is missing: run scripts/bootstrap")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: openssl)
    process.arguments = [
        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key.path, "-out", certificate.path, "-days", "1",
        "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
    ]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    try #require(process.terminationStatus == 0, "openssl could not make a certificate")
    return (certificate, key)
}

@Suite("trustedHosts: self-signed TLS only for the hosts named")
struct TrustedHostsTests {
    @Test("a self-signed server fails unless its host is trusted; trusting another host does not help")
    func selfSignedServer() async throws {
        try await withTemporaryDirectory { directory in
            let server = try await TestHTTPServer.start(tls: try selfSignedCertificate(in: directory))
            server.route("/a.png", .ok(Fixtures.png(width: 12, height: 8), contentType: "image/png"))
            let url = try #require(URL(string: "https://localhost:\(server.port)/a.png"))
            let downloader = ImageDownloader(name: "tls-\(UUID().uuidString)")

            await #expect(throws: KingfisherError.self) { _ = try await downloader.downloadImage(with: url) }
            #expect(server.hits("/a.png") == 0)  // the handshake failed: no request was read

            downloader.trustedHosts = ["127.0.0.1", "example.com"]
            await #expect(throws: KingfisherError.self) { _ = try await downloader.downloadImage(with: url) }
            #expect(server.hits("/a.png") == 0)

            downloader.trustedHosts = ["localhost"]
            let loaded = try await downloader.downloadImage(with: url)
            #expect(loaded.image.pixelWidth == 12 && loaded.image.pixelHeight == 8)
            #expect(server.hits("/a.png") == 1)

            try await downloader.shutdown()
            try await server.shutdown()
        }
    }
}

/// Answers server-trust challenges with a fixed disposition and records them.
private final class FixedResponder: AuthenticationChallengeResponsible {
    let disposition: URLSession.AuthChallengeDisposition
    private let seen = Locked<[(host: String, port: Int, method: String?)]>([])

    init(_ disposition: URLSession.AuthChallengeDisposition) {
        self.disposition = disposition
    }

    var challenges: [(host: String, port: Int, method: String?)] { seen.withLock { $0 } }

    func downloader(
        _ downloader: ImageDownloader, didReceive challenge: URLAuthenticationChallenge
    ) async -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        let space = challenge.protectionSpace
        seen.withLock { $0.append((space.host, space.port, space.authenticationMethod)) }
        return (disposition, nil)
    }
}

@Suite("authenticationChallengeResponder: the server-trust decision")
struct AuthenticationChallengeResponderTests {
    private func withSelfSignedServer(
        _ body: (TestHTTPServer, URL) async throws -> Void
    ) async throws {
        try await withTemporaryDirectory { directory in
            let server = try await TestHTTPServer.start(tls: try selfSignedCertificate(in: directory))
            server.route("/a.png", .ok(Fixtures.png(width: 12, height: 8), contentType: "image/png"))
            let url = try #require(URL(string: "https://localhost:\(server.port)/a.png"))
            try await body(server, url)
            try await server.shutdown()
        }
    }

    @Test("by default the downloader itself responds, with its trustedHosts")
    func defaultResponder() async throws {
        let downloader = ImageDownloader(name: "responder-\(UUID().uuidString)")
        #expect(downloader.authenticationChallengeResponder === downloader)
        #expect(downloader.trustedHosts == nil)
        try await downloader.shutdown()
    }

    @Test("useCredential trusts the server; the challenge names the host, port and server-trust method")
    func useCredential() async throws {
        try await withSelfSignedServer { server, url in
            let downloader = ImageDownloader(name: "responder-\(UUID().uuidString)")
            let responder = FixedResponder(.useCredential)
            downloader.authenticationChallengeResponder = responder
            let loaded = try await downloader.downloadImage(with: url)
            #expect(loaded.image.pixelWidth == 12)
            let challenge = try #require(responder.challenges.first)
            #expect(challenge.host == "localhost")
            #expect(challenge.port == server.port)
            #expect(challenge.method == ImageDownloader.serverTrustAuthenticationMethod)
            try await downloader.shutdown()
        }
    }

    @Test("performDefaultHandling verifies the certificate; cancel makes no connection")
    func defaultHandlingAndCancel() async throws {
        try await withSelfSignedServer { server, url in
            let downloader = ImageDownloader(name: "responder-\(UUID().uuidString)")
            // A responder of its own replaces trustedHosts
            downloader.trustedHosts = ["localhost"]
            let verifying = FixedResponder(.performDefaultHandling)
            downloader.authenticationChallengeResponder = verifying
            await #expect(throws: KingfisherError.self) { _ = try await downloader.downloadImage(with: url) }
            #expect(server.hits("/a.png") == 0)

            let cancelling = FixedResponder(.cancelAuthenticationChallenge)
            downloader.authenticationChallengeResponder = cancelling
            do {
                _ = try await downloader.downloadImage(with: url)
                Issue.record("expected a failure")
            } catch let error as KingfisherError {
                guard case .responseError(.URLSessionError(let underlying as URLError)) = error else {
                    Issue.record("expected URLSessionError(URLError), got \(error)")
                    return
                }
                #expect(underlying.code == .cancelled)
            }
            #expect(cancelling.challenges.count == 1)
            #expect(server.hits("/a.png") == 0)
            try await downloader.shutdown()
        }
    }

    @Test("plain HTTP asks no one")
    func plainHTTP() async throws {
        try await withDownloader { server, downloader in
            server.route("/a.png", .ok(Fixtures.png()))
            let responder = FixedResponder(.cancelAuthenticationChallenge)
            downloader.authenticationChallengeResponder = responder
            _ = try await downloader.downloadImage(with: server.url("/a.png"))
            #expect(responder.challenges.isEmpty)
        }
    }
}
