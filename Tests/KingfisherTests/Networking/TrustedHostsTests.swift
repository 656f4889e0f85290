import Foundation
import Kingfisher
import KingfisherTestSupport
import Testing

/// A self-signed certificate for `localhost` made on the spot with the `openssl` command (installed by
/// scripts/bootstrap), valid for a day.
private func selfSignedCertificate(in directory: URL) throws -> (certificateChain: URL, privateKey: URL) {
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
