import Foundation
import Kingfisher
import KingfisherTestSupport
import Testing

/// `kf gallery` filmed (its screenshot series) while its tiles load from a slow origin and turn to their images:
/// every frame of every tile shows something — the name label and spinner, a part of the turning picture, or the
/// image — and never only the window's background.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["DISPLAY"] != nil, "needs a display (run under xvfb-run)"))
struct GalleryTransitionFilmTests {
    /// The tiles of rows 0 and 1 in `GalleryCommandTests.layout` (4 columns of 100 x 75 points, 6 apart, the grid
    /// centred in 440 points: 11 points in), as x, y, width, height.
    static func tileRect(_ index: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        (11 + index % 4 * 106, index / 4 * 81, 100, 75)
    }

    /// Pixels of `rect` in `shot` that differ from `background` (summed over red, green, blue by more than 60), and
    /// those within 12 of `colour`.
    static func census(
        _ shot: KFCrossPlatformImage, _ pixels: [UInt8], rect: (x: Int, y: Int, width: Int, height: Int),
        background: [UInt8], colour: [UInt8]
    ) -> (drawn: Int, image: Int) {
        var drawn = 0
        var image = 0
        // Plain loops: this runs over every pixel of some hundred frames in a debug build.
        pixels.withUnsafeBufferPointer { pixels in
            for y in rect.y..<min(rect.y + rect.height, shot.pixelHeight) {
                for x in rect.x..<min(rect.x + rect.width, shot.pixelWidth) {
                    let offset = (y * shot.pixelWidth + x) * 4
                    var fromBackground = 0
                    var farFromColour = 0
                    for band in 0..<3 {
                        let value = Int(pixels[offset + band])
                        fromBackground += abs(value - Int(background[band]))
                        farFromColour = max(farFromColour, abs(value - Int(colour[band])))
                    }
                    if fromBackground > 60 { drawn += 1 }
                    if farFromColour <= 12 { image += 1 }
                }
            }
        }
        return (drawn, image)
    }

    @Test(arguments: ["flip-left:1.5", "fade:1.5"])
    func noFrameOfATileIsBlankFromItsPlaceholderToItsImage(transition: String) async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { try? await server.shutdown() } }
        let count = 8
        // Photos' proportions, larger than the tiles: they are made into thumbnails, as in a real gallery.
        for index in 0..<count {
            let body = try GalleryCommandTests.tile(index, width: 640, height: 480)
            server.route(
                "/f\(index).png", TestHTTPServer.Route(headers: [("Content-Type", "image/png")], body: body, held: true)
            )
        }
        let scratch = try TempDir()
        let urls = (0..<count).map { server.url("/f\($0).png").absoluteString }
        async let finished = Kf.run(
            ["gallery"] + urls + GalleryCommandTests.layout + [
                "--transition", transition, "--cache-dir", scratch.path("cache"), "--report",
                scratch.path("report.json"),
                "--screenshots", scratch.path("film"), "--screenshot-every", "0.03", "--screenshot-until", "90",
                "--screenshot-settle", "1.5",
            ])
        // The origin answers once every tile has asked (so the film starts on their placeholders), all at once.
        let asked = Date().addingTimeInterval(30)
        while (0..<count).contains(where: { server.hits("/f\($0).png") == 0 }) && Date() < asked {
            try await Task.sleep(for: .milliseconds(10))
        }
        try await Task.sleep(for: .milliseconds(300))
        for index in 0..<count { server.release("/f\(index).png") }
        let run = try await finished
        #expect(run.status == 0, "\(run.stderr)")

        let names = try FileManager.default.contentsOfDirectory(atPath: scratch.path("film")).sorted()
        #expect(names.count > 30, "\(names.count) frames")
        let colours = try (0..<count).map {
            Array(try KFCrossPlatformImage(decoding: GalleryCommandTests.tile($0)).kf.rgbaPixels()[0..<3])
        }
        var blank: [String] = []
        // Per tile: frames before its image showed at all, frames in its transition, frames of the image alone.
        var phases = [(waiting: Int, turning: Int, shown: Int)](repeating: (0, 0, 0), count: count)
        for name in names {
            let shot = try KFCrossPlatformImage(
                decoding: Data(contentsOf: URL(fileURLWithPath: scratch.path("film/\(name)"))))
            let pixels = shot.kf.rgbaPixels()
            // The window's background, in the margin left of the grid.
            let background = Array(pixels[(37 * shot.pixelWidth + 4) * 4..<(37 * shot.pixelWidth + 4) * 4 + 3])
            for index in 0..<count {
                let rect = Self.tileRect(index)
                let seen = Self.census(shot, pixels, rect: rect, background: background, colour: colours[index])
                // Nothing but the background: not one pixel of the placeholder, the turning picture or the image.
                // (A placeholder turned edge-on is a sliver 2 points wide, of the label's and spinner's pixels there:
                // a dozen or so; a blank tile has none.)
                if seen.drawn == 0 { blank.append("\(name) tile \(index)") }
                let area = rect.width * rect.height
                if seen.image == 0 {
                    phases[index].waiting += 1
                } else if seen.image < area * 95 / 100 {
                    phases[index].turning += 1
                } else {
                    phases[index].shown += 1
                }
            }
        }
        #expect(blank.isEmpty, "\(blank.count) blank tiles, first: \(blank.prefix(8))")
        // The film holds each tile's wait and its image, and for a flip the turn between them (the tiles turn
        // together: on a loaded machine a frame may fall in the turn of some of them only; a fade's blend is near
        // no colour of the image's until its last frames).
        #expect(phases.allSatisfy { $0.waiting > 0 && $0.shown > 0 }, "\(phases)")
        if transition.hasPrefix("flip") { #expect(phases.contains { $0.turning > 0 }, "\(phases)") }
        // The name label sits clear of the spinner.
        let counts = try #require(
            try GalleryCommandTests.report(scratch.path("report.json"))["counts"] as? [String: Int])
        #expect((counts["labelAndSpinnerShown"] ?? 0) > 0 && counts["labelOverSpinner"] == 0, "\(counts)")
    }
}
