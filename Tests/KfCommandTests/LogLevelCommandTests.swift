import Foundation
import KingfisherTestSupport
import Testing

@Suite("kf --log-level")
struct LogLevelCommandTests {
    @Test("--log-level debug logs the library's events to stderr; without it, none")
    func logLevelBootstrapsAStderrLog() async throws {
        let server = try await TestHTTPServer.start()
        let dir = try TempDir()
        server.route("/img/a.png", .ok(try Samples.coordinatePNG(width: 32, height: 32), contentType: "image/png"))
        let url = server.url("/img/a.png").absoluteString

        let quiet = try await Kf.run(["fetch", url, "--cache-dir", dir.path("quiet"), "-o", dir.path("quiet.png")])
        #expect(quiet.status == 0, "\(quiet.stderr)")
        #expect(!quiet.stderr.contains("Downloaded an image"))
        #expect(!quiet.stderr.contains("Retrieved an image"))

        let logged = try await Kf.run([
            "fetch", url, "--cache-dir", dir.path("logged"), "-o", dir.path("logged.png"), "--log-level", "debug",
        ])
        #expect(logged.status == 0, "\(logged.stderr)")
        let download = try #require(logged.stderrLines.first { $0.contains("Downloaded an image") })
        #expect(download.contains("debug"))
        #expect(download.contains("kf.url=\(url)"))
        #expect(download.contains("kf.status=200"))
        #expect(logged.stderrLines.contains { $0.contains("Retrieved an image") && $0.contains("kf.tier=none") })
        // Only the level asked for and above
        let warnings = try await Kf.run([
            "fetch", url, "--cache-dir", dir.path("logged"), "-o", dir.path("again.png"), "--log-level", "warning",
        ])
        #expect(warnings.status == 0, "\(warnings.stderr)")
        #expect(!warnings.stderr.contains("Retrieved an image"))
        #expect(try await Kf.run(["fetch", url, "--log-level", "loud"]).status != 0)
        try await server.shutdown()
    }
}
