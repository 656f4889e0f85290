import Foundation
import Kingfisher
import KingfisherLocking
import KingfisherTestSupport
import Testing

/// `kf gallery` as a process, in a real GTK window (Xvfb in CI), loading from the loopback server.
@Suite(
    .enabled(if: ProcessInfo.processInfo.environment["DISPLAY"] != nil, "needs a display (run under xvfb-run)"),
    .serialized)
struct GalleryCommandTests {
    /// 4 columns of 100 x 75 point tiles, 6 points apart, in a 440 x 300 window: rows 0 to 3 show (the fourth in
    /// part), row 4 is the first one below the screen.
    static let layout = ["--size", "440x300", "--cell", "100", "--columns", "4"]

    /// A `width` x `height` PNG of one colour, different for each `index`.
    static func tile(_ index: Int, width: Int = 160, height: Int = 120) throws -> Data {
        let rgba: [UInt8] = [UInt8(40 + index * 3 % 200), UInt8(200 - index * 3 % 180), UInt8(index % 2 * 200), 255]
        let image = try KFCrossPlatformImage(
            rgbaPixels: [UInt8]((0..<width * height).flatMap { _ in rgba }), width: width, height: height)
        return try image.kf.encoded(as: .PNG)
    }

    /// The report `--report` wrote.
    static func report(_ path: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
        return try #require(object as? [String: Any])
    }

    @Test func onlyTheTilesOnScreenLoadAndTheRowAheadIsFetchedWithoutDecoding() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { try? await server.shutdown() } }
        for index in 0..<40 {
            server.route("/t\(index).png", .cacheable(try Self.tile(index), contentType: "image/png"))
        }
        let scratch = try TempDir()
        let urls = (0..<40).map { server.url("/t\($0).png").absoluteString }
        let run = try await Kf.run(
            ["gallery"] + urls + Self.layout + [
                "--prefetch", "1", "--cache-dir", scratch.path("cache"), "--screenshot", scratch.path("shot.png"),
                "--screenshot-after", "3", "--report", scratch.path("report.json"),
            ])
        #expect(run.status == 0, "\(run.stderr)")
        // Rows 0-3 load (16 tiles); row 4 is fetched ahead; nothing below it is asked for.
        let asked = (0..<40).filter { server.hits("/t\($0).png") > 0 }
        #expect(asked == Array(0..<20), "\(asked)")
        let report = try Self.report(scratch.path("report.json"))
        let counts = try #require(report["counts"] as? [String: Int])
        #expect(counts["everVisible"] == 16 && counts["started"] == 16 && counts["loaded"] == 16, "\(counts)")
        #expect(counts["shown"] == 16, "\(counts)")
        #expect(counts["prefetchRequested"] == 4, "\(counts)")
        // Only what was shown was decoded: the prefetched row went to disk as bytes.
        #expect(report["imagesDecoded"] as? Int == 16, "\(report)")
        // The completion handlers asked for Dispatch's main queue and ran on the GTK thread.
        #expect(counts["completedOnGTKThread"] == 16, "\(counts)")
        // The screenshot is the window, with the first tile's colour in its place.
        let shot = try KFCrossPlatformImage(decoding: Data(contentsOf: URL(fileURLWithPath: scratch.path("shot.png"))))
        #expect(shot.pixelWidth == 440 && shot.pixelHeight == 300)
        let pixels = shot.kf.rgbaPixels()
        let expected = try KFCrossPlatformImage(decoding: Self.tile(0)).kf.rgbaPixels()
        // The grid is centred: 4 x 100 + 3 x 6 = 418 points, so it starts 11 points in; tile 0's middle is (61, 37).
        let offset = (37 * 440 + 61) * 4
        let got = Array(pixels[offset..<offset + 3])
        #expect(zip(got, expected[0..<3]).allSatisfy { abs(Int($0) - Int($1)) <= 8 }, "\(got) vs \(expected[0..<4])")
    }

    @Test func scrollingPastTilesCancelsTheirLoadsAndTheServerSeesThemDropped() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { try? await server.shutdown() } }
        for index in 0..<60 {
            server.route("/h\(index).png", TestHTTPServer.Route(body: try Self.tile(index), held: true))
        }
        let scratch = try TempDir()
        let urls = (0..<60).map { server.url("/h\($0).png").absoluteString }
        // Scrolls to the bottom in a second (later on a busy machine, never skipping a row); the process stays
        // until no load runs, so until the responses of the last screen are released.
        async let finished = Kf.run(
            ["gallery"] + urls + Self.layout + [
                "--prefetch", "0", "--scroll-through", "1", "--cache-dir", scratch.path("cache"),
                "--report", scratch.path("report.json"),
            ])
        // The first requests come with the first frame; the scroll ends a second later.
        let opened = Date().addingTimeInterval(7)
        while server.totalHits == 0 && Date() < opened { try await Task.sleep(for: .milliseconds(10)) }
        let scrollEnds = Date().addingTimeInterval(1.5)
        // The scroll reaches the bottom: tiles of the last screen (rows 11-14, tiles 44-59) are asked for. Only six
        // downloads run at once, so some of them wait in the queue while the responses are held.
        let deadline = Date().addingTimeInterval(7)
        while !(44..<60).contains(where: { server.hits("/h\($0).png") > 0 }) && Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        // The rows above the last screen leave it within the last moments of the scroll: give their cancellations
        // the time to reach the server.
        let asked = { (0..<60).filter { server.hits("/h\($0).png") > 0 } }
        let settled = Date().addingTimeInterval(5)
        while asked().filter({ $0 < 40 }).contains(where: { server.abandoned("/h\($0).png") == 0 }), Date() < settled {
            try await Task.sleep(for: .milliseconds(20))
        }
        let scrolledAway = asked().filter { $0 < 40 }
        let lastScreen = asked().filter { $0 >= 44 }
        // Every request of a tile that left the screen was dropped under its held response: the load was cancelled.
        #expect(scrolledAway.count >= 20, "the scroll went past them: \(asked())")
        #expect(
            scrolledAway.allSatisfy { server.abandoned("/h\($0).png") == 1 },
            "\(scrolledAway.map { server.abandoned("/h\($0).png") })")
        // Those of the last screen still wait for their bytes.
        #expect(!lastScreen.isEmpty && lastScreen.allSatisfy { server.abandoned("/h\($0).png") == 0 }, "\(asked())")
        // Released once the scroll is over, so that only the last screen's tiles get their images.
        if Date() < scrollEnds { try await Task.sleep(for: .seconds(scrollEnds.timeIntervalSinceNow)) }
        for index in 0..<60 { server.release("/h\(index).png") }
        let run = try await finished
        #expect(run.status == 0, "\(run.stderr)")
        let counts = try #require(try Self.report(scratch.path("report.json"))["counts"] as? [String: Int])
        #expect((counts["cancelled"] ?? 0) >= 20 && counts["everVisible"] == 60, "\(counts)")
        // Released, the last screen's 16 tiles load; none of the tiles scrolled past got its image.
        #expect(counts["loaded"] == 16 && counts["shown"] == 16, "\(counts)")
    }

    @Test func aScreenshotSeriesIsNumberedAndTimedFromTheFirstFrame() async throws {
        let scratch = try TempDir()
        let file = scratch.path("tile.png")
        try Self.tile(3).write(to: URL(fileURLWithPath: file))
        let run = try await Kf.run(
            ["gallery", file, file] + Self.layout + [
                "--transition", "flip-left:0.4", "--cache-dir", scratch.path("cache"),
                "--screenshots", scratch.path("series"), "--screenshot-every", "0.25", "--screenshot-until", "0.75",
                "--report", scratch.path("report.json"),
            ])
        #expect(run.status == 0, "\(run.stderr)")
        // Shot n is the one due (n - 1) x 0.25 s after the first frame; one a late frame came too late for is
        // skipped (its number missing; the report counts it), the first frame's never is.
        let names = try FileManager.default.contentsOfDirectory(atPath: scratch.path("series")).sorted()
        #expect(names.first == "0001.png" && Set(names).isSubset(of: ["0001.png", "0002.png", "0003.png", "0004.png"]))
        let shots = try #require(try Self.report(scratch.path("report.json"))["screenshots"] as? [String: Int])
        #expect(shots == ["taken": names.count, "skipped": 4 - names.count], "\(shots)")
        for name in names {
            let shot = try KFCrossPlatformImage(
                decoding: Data(contentsOf: URL(fileURLWithPath: scratch.path("series/\(name)"))))
            #expect(shot.pixelWidth == 440 && shot.pixelHeight == 300)
        }
    }

    @Test func onAHiDPIScreenThumbnailsAreMadeInDevicePixels() async throws {
        let scratch = try TempDir()
        let file = scratch.path("big.png")
        try Self.tile(5, width: 640, height: 480).write(to: URL(fileURLWithPath: file))
        var widths: [Double: Int] = [:]
        for scale in [1.0, 2.0] {
            // GDK_SCALE makes GTK's X11 backend report a scale factor, as a HiDPI monitor does.
            let run = try await Kf.run(
                ["gallery", file] + Self.layout + [
                    "--cache-dir", scratch.path("cache-\(scale)"), "--screenshot", scratch.path("shot.png"),
                    "--screenshot-after", "3", "--report", scratch.path("report.json"),
                ], environment: ["GDK_SCALE": "\(Int(scale))"])
            #expect(run.status == 0, "\(run.stderr)")
            let counts = try #require(try Self.report(scratch.path("report.json"))["counts"] as? [String: Any])
            #expect(counts["scaleFactor"] as? Double == scale, "\(counts)")
            widths[scale] = counts["widestImagePixels"] as? Int
        }
        // A 100 x 75 point tile: a 4:3 photo is made to fill it, 100 pixels wide at 1x and 200 at 2x.
        #expect(widths == [1: 100, 2: 200], "\(widths)")
    }

    @Test func badArgumentsAndNoDisplayAreClearErrors() async throws {
        let badTransition = try await Kf.run(["gallery", "a.png", "--transition", "spin:1"])
        #expect(badTransition.status == 64 && badTransition.stderr.contains("--transition"), "\(badTransition.stderr)")
        let noSources = try await Kf.run(["gallery"])
        #expect(noSources.status == 64, "\(noSources.stderr)")
        let noDisplay = try await Kf.run(["gallery", "a.png"], environment: ["DISPLAY": "", "WAYLAND_DISPLAY": ""])
        #expect(noDisplay.status == 1 && noDisplay.stderr.contains("needs a display"), "\(noDisplay.stderr)")
    }
}
