import Foundation
import Kingfisher
import KingfisherTestSupport
import Testing

/// What a `kf gallery` tile shows: a failure with its reason, a name label clear of the spinner at every size, an
/// image made for the pixels it fills. In `GalleryCommandTests`' suite, which runs one process at a time: a window
/// per test, not four at once on a small machine.
extension GalleryCommandTests {
    /// Pixels of `rect` in `shot` near the failure mark's red (#c01c28).
    static func redPixels(
        _ shot: KFCrossPlatformImage, _ pixels: [UInt8], rect: (x: Int, y: Int, width: Int, height: Int)
    ) -> Int {
        var count = 0
        for y in rect.y..<min(rect.y + rect.height, shot.pixelHeight) {
            for x in rect.x..<min(rect.x + rect.width, shot.pixelWidth) {
                let offset = (y * shot.pixelWidth + x) * 4
                if pixels[offset] > 140 && pixels[offset + 1] < 90 && pixels[offset + 2] < 100 { count += 1 }
            }
        }
        return count
    }

    @Test func aFailedTileShowsAMarkWithItsReasonAndSaysOnStandardErrorWhatFailed() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { try? await server.shutdown() } }
        let photo = try KFCrossPlatformImage(decoding: Self.tile(0, width: 320, height: 240))
        let jpeg = try #require(photo.kf.jpegRepresentation(compressionQuality: 0.9))
        server.route("/ok.png", .ok(try Self.tile(0), contentType: "image/png"))
        server.route("/missing.png", .status(404))
        server.route("/garbage.png", .ok(Data("these are not the bytes of an image".utf8), contentType: "image/png"))
        server.route("/truncated.jpg", .ok(jpeg.prefix(jpeg.count / 2), contentType: "image/jpeg"))
        let paths = ["/ok.png", "/missing.png", "/garbage.png", "/truncated.jpg"]
        let urls = paths.map { server.url($0).absoluteString }
        let scratch = try TempDir()
        let run = try await Kf.run(
            ["gallery"] + urls + Self.layout + [
                "--cache-dir", scratch.path("cache"), "--report", scratch.path("report.json"),
                "--screenshots", scratch.path("film"), "--screenshot-every", "0.25", "--screenshot-until", "90",
                "--screenshot-settle", "0.5",
            ])
        #expect(run.status == 0, "\(run.stderr)")
        // One line each on standard error: `error: SOURCE: reason`.
        for url in urls.dropFirst() {
            #expect(run.stderrLines.filter { $0.hasPrefix("error: \(url): ") }.count == 1, "\(run.stderr)")
        }
        #expect(run.stderrLines.contains { $0.hasPrefix("error: \(urls[1]): ") && $0.contains("404") }, "\(run.stderr)")
        #expect(!run.stderr.contains(urls[0]), "\(run.stderr)")
        let counts = try #require(
            try Self.report(scratch.path("report.json"))["counts"] as? [String: Any])
        #expect(counts["failed"] as? Int == 3 && counts["failureMarks"] as? Int == 3, "\(counts)")
        // The last shot: the failed tiles show the red mark, the loaded one its image.
        let last = try #require(try FileManager.default.contentsOfDirectory(atPath: scratch.path("film")).max())
        let shot = try KFCrossPlatformImage(
            decoding: Data(contentsOf: URL(fileURLWithPath: scratch.path("film/\(last)"))))
        let pixels = shot.kf.rgbaPixels()
        let red = (0..<4).map { Self.redPixels(shot, pixels, rect: GalleryTransitionFilmTests.tileRect($0)) }
        #expect(red[0] == 0 && red.dropFirst().allSatisfy { $0 > 20 }, "\(red)")
    }

    @Test(arguments: [48, 64, 80, 100, 160])
    func theNameLabelIsClearOfTheSpinnerAtEveryTileSize(cell: Int) async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { try? await server.shutdown() } }
        // Held: every tile shows its placeholder (name label) and spinner for the whole film.
        for index in 0..<8 {
            server.route("/n\(index).png", TestHTTPServer.Route(body: try Self.tile(index), held: true))
        }
        let urls = (0..<8).map { server.url("/n\($0).png").absoluteString }
        let scratch = try TempDir()
        let run = try await Kf.run(
            ["gallery"] + urls + [
                "--size", "440x300", "--cell", "\(cell)", "--columns", "4", "--cache-dir", scratch.path("cache"),
                "--report", scratch.path("report.json"), "--screenshots", scratch.path("film"),
                "--screenshot-every", "0.1", "--screenshot-until", "1",
            ])
        #expect(run.status == 0, "\(run.stderr)")
        let counts = try #require(
            try Self.report(scratch.path("report.json"))["counts"] as? [String: Any])
        #expect(counts["labelOverSpinner"] as? Int == 0, "\(counts)")
        // From 100 points up a tile has room for both, and the film saw them.
        if cell >= 100 { #expect((counts["labelAndSpinnerShown"] as? Int ?? 0) > 0, "\(counts)") }
    }

    @Test func tallAndWideImagesAreMadeForThePixelsTheirTileFills() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { try? await server.shutdown() } }
        let sizes = [(300, 1500), (2400, 400), (640, 480)]
        for (index, size) in sizes.enumerated() {
            server.route(
                "/s\(index).png",
                .ok(try Self.tile(index, width: size.0, height: size.1), contentType: "image/png"))
        }
        let urls = sizes.indices.map { server.url("/s\($0).png").absoluteString }
        let scratch = try TempDir()
        var made: [Int: [String]] = [:]
        for scale in [1, 2] {
            let run = try await Kf.run(
                ["gallery"] + urls + Self.layout + [
                    "--cache-dir", scratch.path("cache-\(scale)"), "--report", scratch.path("report.json"),
                    "--screenshots", scratch.path("film-\(scale)"), "--screenshot-every", "0.5",
                    "--screenshot-until", "90", "--screenshot-settle", "0.3",
                ], environment: ["GDK_SCALE": "\(scale)"])
            #expect(run.status == 0, "\(run.stderr)")
            let report = try Self.report(scratch.path("report.json"))
            let pixels = try #require(report["imagePixels"] as? [String: String], "\(report)")
            made[scale] = urls.map { pixels[$0] ?? "none" }
        }
        // A 100 x 75 point tile, filled: the narrower side matches the tile's in device pixels, the other overflows.
        #expect(made[1] == ["100x500", "450x75", "100x75"], "\(made)")
        #expect(made[2] == ["200x1000", "900x150", "200x150"], "\(made)")
    }
}
