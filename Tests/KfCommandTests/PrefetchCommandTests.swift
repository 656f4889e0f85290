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
                "/\(name).png", .cacheable(try Samples.coordinatePNG(width: 64, height: 64), contentType: "image/png"))
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
        // three images, and the HTTP cache record of each
        let stored = try FileManager.default.contentsOfDirectory(atPath: dir.path("cache"))
        #expect(stored.filter { !$0.hasSuffix(".http") }.count == 3)
        #expect(stored.filter { $0.hasSuffix(".http") }.count == 3)
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
        // the image (and its HTTP cache record)
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path("cache")).filter {
            !$0.hasSuffix(".http")
        }
        #expect(files.count == 1)
        #expect(try Data(contentsOf: dir.url.appendingPathComponent("cache/\(files[0])")) == body)
        try await server.shutdown()
    }

    @Test("--original reads JPEG and PNG headers without loading libvips; a GIF's header is libvips' to read")
    func originalChecksJPEGAndPNGWithoutLibvips() async throws {
        let server = try await TestHTTPServer.start()
        let dir = try TempDir()
        server.route("/p.jpg", .ok(try Samples.jpeg(width: 80, height: 60), contentType: "image/jpeg"))
        server.route("/p.png", .ok(try Samples.coordinatePNG(width: 70, height: 50), contentType: "image/png"))
        server.route("/a.gif", .ok(try Samples.animatedGIF(loopCount: 0), contentType: "image/gif"))
        // The dynamic loader names each file it opens: libvips itself, then its modules when it starts.
        func libvipsLoaded(_ paths: [String], cache: String) async throws -> Bool {
            let run = try await Kf.run(
                ["prefetch", "--url-file", "-", "--original", "--cache-dir", dir.path(cache)],
                stdin: paths.map { server.url($0).absoluteString + "\n" }.joined(), environment: ["LD_DEBUG": "files"])
            #expect(run.stderr.contains("\(paths.count) completed, 0 skipped, 0 failed"), "\(run.stderr.suffix(300))")
            return run.stderr.contains("libvips.so.42") && run.stderr.contains("/vips-modules-")
        }
        #expect(try await libvipsLoaded(["/p.jpg", "/p.png"], cache: "still") == false)
        #expect(try await libvipsLoaded(["/a.gif"], cache: "animated") == true)
        try await server.shutdown()
    }

    @Test("--original refuses bytes whose header is not an image's, or over the pixel limit, with the reason")
    func originalRefusesBadHeaders() async throws {
        let server = try await TestHTTPServer.start()
        let dir = try TempDir()
        server.route("/page.jpg", .ok(Data("<html>moved</html>".utf8), contentType: "image/jpeg"))
        // A PNG whose IHDR declares 100,000 x 100,000 pixels, with one tiny IDAT: a decompression bomb's header
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            let crc =
                typed.reduce(UInt32(0xFFFF_FFFF)) { crc, byte in
                    (0..<8).reduce(crc ^ UInt32(byte)) { c, _ in c & 1 == 1 ? (c >> 1) ^ 0xEDB8_8320 : c >> 1 }
                } ^ 0xFFFF_FFFF
            let length = UInt32(body.count)
            return (0..<4).map { UInt8(truncatingIfNeeded: length >> (24 - 8 * $0)) } + typed
                + (0..<4).map { UInt8(truncatingIfNeeded: crc >> (24 - 8 * $0)) }
        }
        let bomb = Data(
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
                + chunk("IHDR", [0, 1, 0x86, 0xA0, 0, 1, 0x86, 0xA0, 8, 6, 0, 0, 0])
                + chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]) + chunk("IEND", []))
        server.route("/bomb.png", .ok(bomb, contentType: "image/png"))
        server.route("/p.jpg", .ok(try Samples.jpeg(width: 80, height: 60), contentType: "image/jpeg"))
        let urls = ["/page.jpg", "/bomb.png", "/p.jpg"].map { server.url($0).absoluteString }
        let run = try await Kf.run(
            ["prefetch", "--url-file", "-", "--original", "--cache-dir", dir.path("cache")],
            stdin: urls.joined(separator: "\n") + "\n")
        #expect(run.status == 1)
        #expect(run.stderr.contains("1 completed, 0 skipped, 2 failed"), "\(run.stderr)")
        #expect(
            run.stderrLines.contains { $0.contains("/page.jpg") && $0.contains("it is not an image") },
            "\(run.stderr)")
        #expect(
            run.stderrLines.contains {
                $0.contains("/bomb.png") && $0.contains("more than the limit of 100 megapixels")
            }, "\(run.stderr)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir.path("cache")).filter { !$0.hasSuffix(".http") }
                .count == 1)
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
