import AsyncHTTPClient
import Foundation
import KingfisherLocking
import KingfisherTestSupport
import NIOSSL
import Testing

@testable import Kingfisher

/// A policy naming one address for every hop, and the URLs it was asked about.
private final class FixedAddress: ConnectionAddressPolicy {
    let address: String
    private let asked = Locked<[URL]>([])

    init(_ address: String) {
        self.address = address
    }

    var urls: [URL] { asked.withLock { $0 } }

    func address(toConnectFor url: URL) async throws -> String? {
        asked.withLock { $0.append(url) }
        return address
    }
}

/// Refuses every hop to `host`.
private struct Refusing: ConnectionAddressPolicy {
    struct Refused: Error {}
    let host: String

    func address(toConnectFor url: URL) async throws -> String? {
        if url.host == host { throw Refused() }
        return nil
    }
}

@Suite("a connection address policy: each hop connects where the policy says, by name in Host and TLS")
struct ConnectionAddressPolicyTests {
    @Test("a name is sent to the address chosen, with its own Host header, on every redirect hop")
    func everyHopConnectsToTheChosenAddress() async throws {
        // `localhost` resolves to 127.0.0.1 here: a server there must see nothing, the one on 127.0.0.2 everything.
        let resolved = try await TestHTTPServer.start()
        let chosen = try await TestHTTPServer.start(host: "127.0.0.2", port: resolved.port)
        let png = Fixtures.png(width: 12, height: 8)
        for server in [resolved, chosen] {
            server.route("/first", .redirect(to: "http://localhost:\(resolved.port)/a.png"))
            server.route("/a.png", .ok(png, contentType: "image/png"))
        }
        let downloader = ImageDownloader(name: "pinned-\(UUID().uuidString)")
        let policy = FixedAddress("127.0.0.2")
        downloader.connectionAddressPolicy = policy
        let loaded = try await downloader.downloadImage(
            with: try #require(URL(string: "http://localhost:\(resolved.port)/first")))
        #expect(loaded.image.pixelWidth == 12)
        #expect(chosen.hits("/first") == 1 && chosen.hits("/a.png") == 1)
        #expect(resolved.totalHits == 0)
        let host = chosen.lastRequestHeaders("/a.png")?.first { $0.0.lowercased() == "host" }?.1
        #expect(host == "localhost:\(resolved.port)")
        #expect(policy.urls.map(\.path) == ["/first", "/a.png"])
        try await downloader.shutdown()
        try await resolved.shutdown()
        try await chosen.shutdown()
    }

    @Test("over TLS the certificate is checked against the name, not the address connected to")
    func tlsVerifiesTheName() async throws {
        try await withTemporaryDirectory { directory in
            let files = try selfSignedCertificate(in: directory)
            let server = try await TestHTTPServer.start(tls: files, host: "127.0.0.2")
            server.route("/a.png", .ok(Fixtures.png(width: 12, height: 8), contentType: "image/png"))
            var httpClient = ImageDownloader.Configuration.defaultHTTPClientConfiguration
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(files.certificateChain.path))
            httpClient.tlsConfiguration = tls
            let downloader = ImageDownloader(
                name: "pinned-tls-\(UUID().uuidString)", configuration: .init(httpClient: httpClient))
            downloader.connectionAddressPolicy = FixedAddress("127.0.0.2")
            // The certificate names `localhost`: a handshake by the address alone would fail.
            let loaded = try await downloader.downloadImage(
                with: try #require(URL(string: "https://localhost:\(server.port)/a.png")))
            #expect(loaded.image.pixelHeight == 8)
            #expect(server.hits("/a.png") == 1)
            try await downloader.shutdown()
            try await server.shutdown()
        }
    }

    @Test("a hop the policy refuses fails the download with the policy's error, and is not sent")
    func aRefusedHopIsNotSent() async throws {
        let server = try await TestHTTPServer.start()
        server.route("/first", .redirect(to: "http://localhost:\(server.port)/a.png"))
        server.route("/a.png", .ok(Fixtures.png(width: 12, height: 8), contentType: "image/png"))
        let downloader = ImageDownloader(name: "refusing-\(UUID().uuidString)")
        downloader.connectionAddressPolicy = Refusing(host: "localhost")
        do {
            _ = try await downloader.downloadImage(with: server.url("/first"))
            Issue.record("the refused hop was followed")
        } catch KingfisherError.responseError(reason: .URLSessionError(let error)) {
            #expect(error is Refusing.Refused)
        }
        #expect(server.hits("/first") == 1 && server.hits("/a.png") == 0)
        try await downloader.shutdown()
        try await server.shutdown()
    }
}
