import Foundation
import Kingfisher
import KingfisherTestSupport
import Testing

@Suite("kf prefetch")
struct PrefetchCommandTests {
    @Test("a URL file with blank lines, comments and junk: junk reported by line, the rest cached, then skipped")
    func urlFile() async throws {
        let server = try await TestHTTPServer.start()
        let dir = try TempDir()
        for name in ["a", "b", "c"] {
            server.route(
                "/\(name).png", .ok(try Samples.coordinatePNG(width: 64, height: 64), contentType: "image/png"))
        }
        let list = """
            # thumbnails for the gallery

            \(server.url("/a.png").absoluteString)
              \(server.url("/b.png").absoluteString)
            not a url at all
            \(server.url("/c.png").absoluteString)
            \(server.url("/missing.png").absoluteString)
            """
        try Data(list.utf8).write(to: dir.url.appendingPathComponent("urls.txt"))
        let arguments = [
            "prefetch", "--url-file", dir.path("urls.txt"), "--cache-dir", dir.path("cache"), "--downsample",
            "16x16", "--format", "png",
        ]
        let first = try await Kf.run(arguments)
        #expect(first.status == 1)
        #expect(first.stderr.contains("urls.txt:5: not a URL or an absolute path"))
        #expect(first.stderrLines.contains { $0.contains("/missing.png") && $0.contains("404") }, "\(first.stderr)")
        #expect(first.stderr.contains("3 completed, 0 skipped, 2 failed"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path("cache")).count == 3)
        let second = try await Kf.run(arguments)
        #expect(second.stderr.contains("0 completed, 3 skipped, 2 failed"), "\(second.stderr)")
        for name in ["a", "b", "c"] { #expect(server.hits("/\(name).png") == 1) }
        // What prefetch stored is what fetch with the same flags finds.
        let fetch = try await Kf.run([
            "fetch", server.url("/b.png").absoluteString, "--cache-dir", dir.path("cache"), "--downsample", "16x16",
            "--format", "png", "--json",
        ])
        #expect(fetch.jsonObjects.first?["cacheType"] as? String == "disk")
        #expect(fetch.jsonObjects.first?["width"] as? Int == 16)
        try await server.shutdown()
    }

    @Test("--original caches the downloaded bytes unchanged; read from standard input")
    func original() async throws {
        let server = try await TestHTTPServer.start()
        let dir = try TempDir()
        let body = try Samples.jpeg(width: 80, height: 60)
        server.route("/p.jpg", .ok(body, contentType: "image/jpeg"))
        let run = try await Kf.run(
            ["prefetch", "--url-file", "-", "--original", "--cache-dir", dir.path("cache")],
            stdin: server.url("/p.jpg").absoluteString + "\n")
        #expect(run.status == 0, "\(run.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path("cache"))
        #expect(files.count == 1)
        #expect(try Data(contentsOf: dir.url.appendingPathComponent("cache/\(files[0])")) == body)
        try await server.shutdown()
    }

    @Test("--original with processing flags is refused")
    func originalWithProcessing() async throws {
        let dir = try TempDir()
        let run = try await Kf.run([
            "prefetch", "--url-file", dir.path("none.txt"), "--original", "--blur", "3",
        ])
        #expect(run.status != 0)
        #expect(run.stderr.contains("--original"))
    }

    @Test("an unreadable URL file is one line")
    func missingURLFile() async throws {
        let dir = try TempDir()
        let run = try await Kf.run(["prefetch", "--url-file", dir.path("none.txt"), "--cache-dir", dir.path("c")])
        #expect(run.status != 0)
        #expect(run.stderrLines.count == 1)
        #expect(run.stderr.contains("cannot read the URL file"))
    }
}
