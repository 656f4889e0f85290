import Foundation
import Kingfisher
import KingfisherTestSupport
import Testing

@Suite("kf fetch")
struct FetchCommandTests {
    @Test("a file through --downsample to -o FILE: the output's format follows its extension and fits the size")
    func fileToOutputFile() async throws {
        let dir = try TempDir()
        try Samples.jpeg(width: 400, height: 200).write(to: dir.url.appendingPathComponent("photo.jpg"))
        let run = try await Kf.run([
            "fetch", dir.path("photo.jpg"), "--downsample", "100x100", "-o", dir.path("thumb.png"),
            "--cache-dir", dir.path("cache"),
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let output = try Data(contentsOf: dir.url.appendingPathComponent("thumb.png"))
        #expect(output.kf.imageFormat == .PNG)
        let image = try KFCrossPlatformImage(decoding: output)
        #expect(image.pixelWidth == 100 && image.pixelHeight == 50)
        #expect(run.stderr.contains("1 completed, 0 skipped, 0 failed"))
    }

    @Test("processing flags apply in the order given")
    func processingOrder() async throws {
        let dir = try TempDir()
        try Samples.coordinatePNG(width: 400, height: 200).write(to: dir.url.appendingPathComponent("a.png"))
        let resizeThenCrop = try await Kf.run([
            "fetch", dir.path("a.png"), "--no-cache", "--json", "--resize", "200x100", "--crop", "50x50",
        ])
        let cropThenResize = try await Kf.run([
            "fetch", dir.path("a.png"), "--no-cache", "--json", "--crop", "50x50", "--resize", "200x100",
        ])
        let first = try #require(resizeThenCrop.jsonObjects.first)
        let second = try #require(cropThenResize.jsonObjects.first)
        #expect(first["width"] as? Int == 50 && first["height"] as? Int == 50)
        #expect(second["width"] as? Int == 200 && second["height"] as? Int == 100)
    }

    @Test("--crop WxH@x,y starts at that pixel")
    func cropAtPixel() async throws {
        let dir = try TempDir()
        try Samples.coordinatePNG(width: 200, height: 150).write(to: dir.url.appendingPathComponent("a.png"))
        let run = try await Kf.run([
            "fetch", dir.path("a.png"), "--no-cache", "--crop", "40x30@70,20", "-o", dir.path("crop.png"),
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let image = try KFCrossPlatformImage(decoding: Data(contentsOf: dir.url.appendingPathComponent("crop.png")))
        #expect(image.pixelWidth == 40 && image.pixelHeight == 30)
        let pixels = image.kf.rgbaPixels()
        #expect(Array(pixels[0..<3]) == [70, 20, 90])  // the source's pixel (70, 20)
        let last = (29 * 40 + 39) * 4
        #expect(Array(pixels[last..<last + 3]) == [109, 49, 90])
    }

    @Test("a URL is downloaded once; the second run is served from the disk cache")
    func networkThenDiskCache() async throws {
        let server = try await TestHTTPServer.start()
        let dir = try TempDir()
        server.route(
            "/img/photo.jpg", .cacheable(try Samples.jpeg(width: 300, height: 300), contentType: "image/jpeg"))
        let arguments = [
            "fetch", server.url("/img/photo.jpg").absoluteString, "--downsample", "64x64", "--format", "webp",
            "--output", dir.path("out"), "--cache-dir", dir.path("cache"), "--json",
        ]
        let cold = try await Kf.run(arguments)
        let warm = try await Kf.run(arguments)
        #expect(cold.status == 0 && warm.status == 0, "\(cold.stderr)\(warm.stderr)")
        #expect(server.hits("/img/photo.jpg") == 1)
        let coldRecord = try #require(cold.jsonObjects.first)
        let warmRecord = try #require(warm.jsonObjects.first)
        #expect(coldRecord["cacheType"] as? String == "none")
        #expect(warmRecord["cacheType"] as? String == "disk")
        #expect(warmRecord["format"] as? String == "webp")
        let output = try #require(warmRecord["output"] as? String)
        #expect(output.hasSuffix("/out/photo.webp"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)).kf.imageFormat == .WebP)
        try await server.shutdown()
    }

    @Test("a corrupt cache file is a miss: the source is fetched again and the file replaced")
    func corruptCacheFile() async throws {
        let server = try await TestHTTPServer.start()
        let dir = try TempDir()
        server.route("/c.png", .cacheable(try Samples.coordinatePNG(width: 50, height: 40), contentType: "image/png"))
        let arguments = [
            "fetch", server.url("/c.png").absoluteString, "--cache-dir", dir.path("cache"), "--json", "--blur", "2",
        ]
        _ = try await Kf.run(arguments)
        let name = try #require(
            try FileManager.default.contentsOfDirectory(atPath: dir.path("cache")).first { !$0.hasSuffix(".http") })
        try Data("garbage where an image was".utf8).write(to: dir.url.appendingPathComponent("cache/\(name)"))
        let again = try await Kf.run(arguments)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.jsonObjects.first?["cacheType"] as? String == "none")
        #expect(server.hits("/c.png") == 2)
        let replaced = try Data(contentsOf: dir.url.appendingPathComponent("cache/\(name)"))
        #expect(try KFCrossPlatformImage(decoding: replaced).pixelWidth == 50)
        try await server.shutdown()
    }

    @Test("--force-refresh downloads again; --no-cache writes no cache file")
    func refreshAndNoCache() async throws {
        let server = try await TestHTTPServer.start()
        let dir = try TempDir()
        server.route("/a.png", .ok(try Samples.coordinatePNG(width: 32, height: 32), contentType: "image/png"))
        let url = server.url("/a.png").absoluteString
        _ = try await Kf.run(["fetch", url, "--cache-dir", dir.path("cache")])
        _ = try await Kf.run(["fetch", url, "--cache-dir", dir.path("cache"), "--force-refresh"])
        #expect(server.hits("/a.png") == 2)
        let noCache = try await Kf.run(["fetch", url, "--cache-dir", dir.path("other"), "--no-cache"])
        #expect(noCache.status == 0)
        #expect(server.hits("/a.png") == 3)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: dir.path("other"))) ?? []
        #expect(files.isEmpty)
    }

    @Test("bad sources fail one line each; the good one is still written; the exit code says so")
    func mixedSources() async throws {
        let dir = try TempDir()
        try Samples.coordinatePNG(width: 20, height: 20).write(to: dir.url.appendingPathComponent("good.png"))
        try Data("not an image".utf8).write(to: dir.url.appendingPathComponent("text.png"))
        let run = try await Kf.run([
            "fetch", dir.path("good.png"), dir.path("missing.png"), dir.path("text.png"),
            "http://127.0.0.1:1/refused.png", "ftp://example.com/a.png", "--output", dir.path("out"),
            "--cache-dir", dir.path("cache"),
        ])
        #expect(run.status == 1)
        #expect(FileManager.default.fileExists(atPath: dir.path("out/good.png")))
        let errors = run.stderrLines.filter { $0.hasPrefix("error: ") }
        #expect(errors.count == 4, "\(run.stderr)")
        for source in ["missing.png", "text.png", "refused.png", "ftp://"] {
            #expect(errors.contains { $0.contains(source) }, "no error line for \(source)")
        }
        #expect(!run.stderr.contains("Fatal") && !run.stderr.contains("Stack"))
        #expect(run.stderr.contains("1 completed, 0 skipped, 4 failed"))
    }

    @Test("an output directory that can't be created fails each source with one line; the cache still fills")
    func unwritableOutput() async throws {
        let dir = try TempDir()
        try Samples.coordinatePNG(width: 20, height: 20).write(to: dir.url.appendingPathComponent("a.png"))
        try Samples.coordinatePNG(width: 30, height: 20).write(to: dir.url.appendingPathComponent("b.png"))
        try Data("file".utf8).write(to: dir.url.appendingPathComponent("blocker"))
        let run = try await Kf.run([
            "fetch", dir.path("a.png"), dir.path("b.png"), "--output", dir.path("blocker/out"),
            "--cache-dir", dir.path("cache"), "--downsample", "10x10",
        ])
        #expect(run.status == 1)
        let errors = run.stderrLines.filter { $0.hasPrefix("error: ") && $0.contains("cannot write") }
        #expect(errors.count == 2, "\(run.stderr)")
        let cached = try FileManager.default.contentsOfDirectory(atPath: dir.path("cache"))
        #expect(cached.count == 2)
    }

    @Test("--original writes the downloaded bytes unchanged, caches them, and refuses a body that is not an image")
    func originalBytes() async throws {
        let server = try await TestHTTPServer.start()
        let dir = try TempDir()
        let body = try Samples.jpeg(width: 120, height: 90)
        server.route("/p.jpg", .cacheable(body, contentType: "image/jpeg"))
        server.route("/page.html", .ok(Data("<html></html>".utf8), contentType: "text/html"))
        let image = server.url("/p.jpg").absoluteString
        let page = server.url("/page.html").absoluteString
        let arguments = [
            "fetch", image, page, "--original", "--output", dir.path("out"), "--cache-dir", dir.path("cache"),
            "--json",
        ]
        let cold = try await Kf.run(arguments)
        #expect(cold.status == 1)
        #expect(try Data(contentsOf: dir.url.appendingPathComponent("out/p.jpg")) == body)
        let failure = try #require(cold.jsonObjects.first { $0["source"] as? String == page })
        #expect((failure["error"] as? String)?.isEmpty == false)
        let warm = try await Kf.run(arguments)
        let hit = try #require(warm.jsonObjects.first { $0["source"] as? String == image })
        #expect(hit["cacheType"] as? String == "disk")
        #expect(hit["bytes"] as? Int == body.count)
        #expect(server.hits("/p.jpg") == 1)
        try await server.shutdown()
    }

    @Test(
        "unknown flag values are refused with one line before anything runs",
        arguments: [
            ["--format", "bmp2"], ["--resize", "ten"], ["--crop", "10x10@a,b"], ["--border", "4"],
            ["--overlay", "red:2"], ["--quality", "0"], ["--mode", "stretch"], ["--tint", "#12"],
        ])
    func badFlagValues(_ flags: [String]) async throws {
        let dir = try TempDir()
        let run = try await Kf.run(["fetch", dir.path("a.png"), "--cache-dir", dir.path("cache")] + flags)
        #expect(run.status != 0)
        #expect(run.stderrLines.first?.hasPrefix("Error:") == true, "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: dir.path("cache")))
    }

    @Test("a reader that goes away ends kf as it ends cat (SIGPIPE), and a full disk is an error, never a crash")
    func outputThatCannotBeWritten() async throws {
        let dir = try TempDir()
        try Samples.coordinatePNG(width: 20, height: 10).write(to: dir.url.appendingPathComponent("a.png"))
        let arguments = ["fetch"] + Array(repeating: dir.path("a.png"), count: 20) + ["--json", "--no-cache"]
        let pipe = Pipe()
        try pipe.fileHandleForReading.close()
        let closed = try await Kf.run(arguments, standardOutput: pipe.fileHandleForWriting)
        #expect(closed.status == SIGPIPE, "\(closed.stderr)")
        #expect(!closed.stderr.contains("Fatal error") && !closed.stderr.contains("crashed"))
        let full = try await Kf.run(
            arguments, standardOutput: try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full")))
        #expect(full.status == 1)
        #expect(full.stderr.contains("cannot write its output"), "\(full.stderr)")
    }
}
