import Foundation
import Kingfisher
import KingfisherTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// One command, one result, whatever the cache holds: the output's format follows the source (or `--format`, or
/// `-o`'s extension), never the path the pixels took; flags do what they say and fail saying why.
@Suite("kf does what it was asked")
struct AsAskedCommandTests {
    private func origin(serving photo: Data) async throws -> TestHTTPServer {
        let origin = try await TestHTTPServer.start()
        origin.route("/small.jpg", .ok(photo, contentType: "image/jpeg"))
        return origin
    }

    @Test("a processed result is the same file whether the original was cached or downloaded")
    func processedResultIgnoresWhatTheCacheHeld() async throws {
        let dir = try TempDir()
        let photo = try Samples.jpeg(width: 240, height: 160)
        let origin = try await origin(serving: photo)
        let url = origin.url("/small.jpg").absoluteString
        let local = dir.path("small.jpg")
        try photo.write(to: URL(fileURLWithPath: local))

        let fresh = try await Kf.run(
            ["fetch", url, "--downsample", "100x100", "--output", dir.path("fresh"), "--cache-dir", dir.path("c1")])
        #expect(fresh.status == 0, "\(fresh.stderr)")
        // Another cache, whose originals are cached first (a fetch without processing keeps the original).
        let warm = try await Kf.run(["fetch", url, local, "--cache-dir", dir.path("c2")])
        #expect(warm.status == 0, "\(warm.stderr)")
        let fromCached = try await Kf.run(
            [
                "fetch", local, url, "--downsample", "100x100", "--output", dir.path("cached"), "--cache-dir",
                dir.path("c2"),
            ])
        #expect(fromCached.status == 0, "\(fromCached.stderr)")
        let freshNames = try FileManager.default.contentsOfDirectory(atPath: dir.path("fresh"))
        let cachedNames = try FileManager.default.contentsOfDirectory(atPath: dir.path("cached")).sorted()
        #expect(freshNames == ["small.jpg"])
        #expect(cachedNames == ["small-2.jpg", "small.jpg"])
        let freshBytes = try Data(contentsOf: URL(fileURLWithPath: dir.path("fresh/small.jpg")))
        #expect(freshBytes.kf.imageFormat == .JPEG)
        // The URL's result made from its cached original is the fresh download's result, byte for byte.
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.path("cached/small-2.jpg"))) == freshBytes)

        // And to standard output.
        let pipedURL = dir.url.appendingPathComponent("piped")
        _ = FileManager.default.createFile(atPath: pipedURL.path, contents: nil)
        let piped = try await Kf.run(
            ["fetch", url, "--downsample", "50x50", "-o", "-", "--cache-dir", dir.path("c2")],
            standardOutput: try FileHandle(forWritingTo: pipedURL))
        #expect(piped.status == 0)
        #expect(try Data(contentsOf: pipedURL).kf.imageFormat == .JPEG)
        try await origin.shutdown()
    }

    @Test("-o's extension chooses the format, and an extension kf cannot write is an error")
    func outputExtensionChoosesTheFormat() async throws {
        let dir = try TempDir()
        let photo = try Samples.jpeg(width: 120, height: 80)
        let source = dir.path("photo.jpg")
        try photo.write(to: URL(fileURLWithPath: source))
        let cache = ["--cache-dir", dir.path("cache")]

        for refused in [["-o", dir.path("m11.bmp")], ["--resize", "100x100", "-o", dir.path("x.bmp")]] {
            let run = try await Kf.run(["fetch", source] + refused + cache)
            #expect(run.status == 64, "\(refused): \(run.stderr)")
            #expect(run.stderr.contains("kf cannot write BMP files") && run.stderr.contains("png, jpg (jpeg)"))
            #expect(!run.stderr.contains("Usage:"))
        }
        let contradiction = try await Kf.run(["fetch", source, "--format", "png", "-o", dir.path("y.jpg")] + cache)
        #expect(contradiction.status == 64)
        #expect(contradiction.stderr.contains("--format png contradicts"))
        for name in ["m11.bmp", "x.bmp", "y.jpg"] {
            #expect(!FileManager.default.fileExists(atPath: dir.path(name)), "\(name)")
        }

        // Nothing processes it: the bytes stay exactly as they came when the extension names their format...
        for name in ["same.jpg", "same.jpeg", "plain"] {
            let run = try await Kf.run(["fetch", source, "-o", dir.path(name)] + cache)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: dir.path(name))) == photo, "\(name)")
        }
        // ...and are converted when it names another.
        let converted = try await Kf.run(["fetch", source, "-o", dir.path("other.png")] + cache)
        #expect(converted.status == 0, "\(converted.stderr)")
        let png = try Data(contentsOf: URL(fileURLWithPath: dir.path("other.png")))
        #expect(png.kf.imageFormat == .PNG)
        #expect(try KFCrossPlatformImage(decoding: png).pixelWidth == 120)
        // Processed, the extension's format is what is written.
        let resized = try await Kf.run(["fetch", source, "--resize", "60x40", "-o", dir.path("r.webp")] + cache)
        #expect(resized.status == 0, "\(resized.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.path("r.webp"))).kf.imageFormat == .WebP)
        // Keeping the source's format and naming another is a failure of that source, with nothing written.
        let kept = try await Kf.run(["fetch", source, "--format", "original", "-o", dir.path("k.png")] + cache)
        #expect(kept.status == 1)
        #expect(kept.stderr.contains("-o names png"), "\(kept.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path("k.png")))
    }

    @Test("--border follows the corners --round made: the README's avatar is square and round")
    func borderFollowsRoundCorners() async throws {
        let dir = try TempDir()
        try Samples.jpeg(width: 600, height: 400).write(to: URL(fileURLWithPath: dir.path("avatar.jpg")))
        let run = try await Kf.run(
            [
                "fetch", dir.path("avatar.jpg"), "--resize", "400x400", "--mode", "fill", "--crop", "400x400",
                "--round", "50%", "--border", "6:#336699", "-o", dir.path("avatar.png"), "--no-cache",
            ])
        #expect(run.status == 0, "\(run.stderr)")
        let avatar = try KFCrossPlatformImage(
            decoding: Data(contentsOf: URL(fileURLWithPath: dir.path("avatar.png"))))
        #expect(avatar.pixelWidth == 400 && avatar.pixelHeight == 400)
        let pixels = avatar.kf.rgbaPixels()
        func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(pixels[(y * 400 + x) * 4..<(y * 400 + x) * 4 + 4]) }
        #expect(pixel(0, 0)[3] == 0, "the corner outside the circle is transparent: \(pixel(0, 0))")
        #expect(pixel(399, 399)[3] == 0)
        let edge = pixel(2, 200)
        #expect(edge[3] == 255 && abs(Int(edge[0]) - 0x33) < 8 && abs(Int(edge[2]) - 0x99) < 8, "\(edge)")
        // A radius of its own: a square image with a rounded frame.
        let own = try await Kf.run(
            [
                "fetch", dir.path("avatar.jpg"), "--border", "4:red:20", "-o", dir.path("framed.png"), "--no-cache",
            ])
        #expect(own.status == 0, "\(own.stderr)")
    }

    @Test("a URL file that is not text is one error")
    func binaryURLFileIsOneError() async throws {
        let dir = try TempDir()
        let photo = dir.path("photo.jpg")
        try Samples.jpeg(width: 400, height: 300).write(to: URL(fileURLWithPath: photo))
        let run = try await Kf.run(["prefetch", "--url-file", photo, "--cache-dir", dir.path("cache")])
        #expect(run.status == 1)
        #expect(run.stderrLines.count == 1, "\(run.stderr.prefix(500))")
        #expect(run.stderr.contains("is not text (it is a JPEG image)"))

        let bad = (1...12).map { "not-a-url-\($0)" }.joined(separator: "\n")
        try Data(bad.utf8).write(to: URL(fileURLWithPath: dir.path("urls.txt")))
        let lines = try await Kf.run(["prefetch", "--url-file", dir.path("urls.txt"), "--cache-dir", dir.path("c")])
        #expect(lines.status == 1)
        let errors = lines.stderrLines.filter { $0.hasPrefix("error: ") }
        #expect(errors.count == 6, "\(lines.stderr)")
        #expect(errors.last?.contains("7 more lines") == true)
        #expect(lines.stderr.contains("0 completed, 0 skipped, 12 failed"))
    }

    @Test("a processing failure says why")
    func processingFailuresSayWhy() async throws {
        let dir = try TempDir()
        let source = dir.path("photo.jpg")
        try Samples.jpeg(width: 120, height: 80).write(to: URL(fileURLWithPath: source))
        let huge = try await Kf.run(["fetch", source, "--resize", "100000x100000", "--no-cache"])
        #expect(huge.status == 1)
        #expect(
            huge.stderr.contains("a 100000 x 100000 result is more than the limit of 100000000 pixels"),
            "\(huge.stderr)")
        let outside = try await Kf.run(["fetch", source, "--crop", "100x100@5000,0", "--no-cache"])
        #expect(outside.status == 1)
        #expect(outside.stderr.contains("the crop's corner 5000,0 is outside the 120 x 80 image"), "\(outside.stderr)")
    }

    /// A GIF of ten 1x1 frames of 0.1 s each, written byte by byte.
    private static let tenFrameGIF: Data = {
        var bytes: [UInt8] = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0, 255, 255, 255, 0, 0, 0]
        bytes += [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1, 0, 0, 0]
        for _ in 0..<10 {
            bytes += [0x21, 0xF9, 4, 0, 10, 0, 0, 0]  // 10 hundredths of a second
            bytes += [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0]
        }
        return Data(bytes + [0x3B])
    }()

    @Test("kf info names the cached variants, never an internal key; --json fails in JSON")
    func infoSaysWhatIsCached() async throws {
        let dir = try TempDir()
        let source = dir.path("photo.jpg")
        try Samples.jpeg(width: 600, height: 400).write(to: URL(fileURLWithPath: source))
        try Data((source + "\n").utf8).write(to: URL(fileURLWithPath: dir.path("urls.txt")))
        let cache = ["--cache-dir", dir.path("cache")]
        let prefetch = try await Kf.run(
            ["prefetch", "--url-file", dir.path("urls.txt"), "--downsample", "256x256", "--format", "webp"] + cache)
        #expect(prefetch.status == 0, "\(prefetch.stderr)")
        let info = try await Kf.run(["info", source, "--downsample", "256x256"] + cache)
        #expect(info.status == 0)
        #expect(info.stdout.contains("webp q85"), "\(info.stdout)")
        #expect(!info.stdout.contains("com.onevcat"))
        #expect(!info.stdout.contains("none"))
        let json = try await Kf.run(["info", source, "--downsample", "256x256", "--json"] + cache)
        let variants = try #require(json.jsonObjects.first?["variants"] as? [[String: Any]])
        #expect(variants.count == 1 && variants.first?["format"] as? String == "webp")

        let failed = try await Kf.run(["info", dir.path("missing.jpg"), "--json"] + cache)
        #expect(failed.status == 1)
        #expect(failed.jsonObjects.first?["error"] as? String != nil, "\(failed.stdout)")

        try Self.tenFrameGIF.write(to: URL(fileURLWithPath: dir.path("ten.gif")))
        let gif = try await Kf.run(["info", dir.path("ten.gif"), "--json"] + cache)
        #expect(gif.status == 0, "\(gif.stderr)")
        #expect(gif.stdout.contains("\"duration\":1,") || gif.stdout.contains("\"duration\":1}"), "\(gif.stdout)")
    }

    @Test("small traps: negative numbers, size limits, --output onto a file, a misspelt command")
    func smallTraps() async throws {
        let dir = try TempDir()
        let source = dir.path("photo.jpg")
        try Samples.jpeg(width: 120, height: 80).write(to: URL(fileURLWithPath: source))
        let blur = try await Kf.run(["fetch", source, "--blur", "-1", "--no-cache"])
        #expect(blur.status == 64 && blur.stderr.contains("--blur needs a radius of 0 or more"), "\(blur.stderr)")
        let darker = try await Kf.run(["fetch", source, "--brightness", "-0.2", "--no-cache"])
        #expect(darker.status == 0, "\(darker.stderr)")

        let zero = try await Kf.run(["cache", "clean", "--size-limit", "0", "--cache-dir", dir.path("cache")])
        #expect(zero.status == 64 && zero.stderr.contains("kf cache clear"), "\(zero.stderr)")
        let half = try await Kf.run(["cache", "clean", "--size-limit", "0.5", "--cache-dir", dir.path("cache")])
        #expect(half.status == 64 && half.stderr.contains("whole megabytes"), "\(half.stderr)")
        let clean = try await Kf.run(["cache", "clean", "--cache-dir", dir.path("cache")])
        #expect(clean.status == 0 && clean.stdout.contains("no size limit set"), "\(clean.stdout)")

        try Data("x".utf8).write(to: URL(fileURLWithPath: dir.path("avatar.png")))
        let ontoFile = try await Kf.run(["fetch", source, source + "x", "--output", dir.path("avatar.png")])
        #expect(ontoFile.status == 64)
        #expect(ontoFile.stderr.contains("is a file, not a directory"), "\(ontoFile.stderr)")
        #expect(!ontoFile.stderr.contains("Usage:"))

        let misspelt = try await Kf.run(["fecth", "x"])
        #expect(misspelt.status == 64)
        #expect(misspelt.stderr.contains("Did you mean 'fetch'?"), "\(misspelt.stderr)")
        let unknown = try await Kf.run(["photo.jpg"])
        #expect(unknown.status == 64 && unknown.stderr.contains("is not a kf command"), "\(unknown.stderr)")
    }

    @Test("Ctrl-C ends a prefetch with its summary, marked interrupted")
    func interruptedPrefetchSummarises() async throws {
        let dir = try TempDir()
        let origin = try await TestHTTPServer.start()
        let photo = try Samples.jpeg(width: 64, height: 64)
        for index in 0..<4 { origin.route("/slow\(index).jpg", .trickle(photo, every: .milliseconds(500))) }
        let urls = (0..<4).map { origin.url("/slow\($0).jpg").absoluteString }.joined(separator: "\n")
        try Data(urls.utf8).write(to: URL(fileURLWithPath: dir.path("urls.txt")))
        let out = dir.url.appendingPathComponent("out")
        let err = dir.url.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = Kf.executable
        process.arguments = ["prefetch", "--url-file", dir.path("urls.txt"), "--cache-dir", dir.path("cache")]
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        // Interrupted once the downloads are under way.
        let deadline = Date().addingTimeInterval(60)
        while (0..<4).allSatisfy({ origin.hits("/slow\($0).jpg") == 0 }), Date() < deadline, process.isRunning {
            try await Task.sleep(for: .milliseconds(20))
        }
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        let stderr = try String(contentsOf: err, encoding: .utf8)
        #expect(stderr.contains("0 completed, 0 skipped, 0 failed"), "\(stderr)")
        #expect(stderr.contains("interrupted with 4 not done"), "\(stderr)")
        try await origin.shutdown()
    }
}
