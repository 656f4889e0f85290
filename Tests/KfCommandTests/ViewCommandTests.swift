import Foundation
import Kingfisher
import KingfisherTestSupport
import Testing

/// `kf view` in a real terminal: tmux runs it, `capture-pane` reads the screen back.
@Suite("kf view", .serialized, .timeLimit(.minutes(3)))
struct ViewCommandTests {
    /// A shell line running `kf view arguments...`, then printing its exit status and staying open to be read.
    static func shellLine(_ arguments: [String]) -> String {
        ([Kf.executable.path, "view"] + arguments).map { "'\($0)'" }.joined(separator: " ")
            + "; echo kf-exit=$?; sleep 600"
    }

    /// The picture rows of a capture: every line above the status line of a single view in a 40-row pane.
    static func picture(_ capture: String) -> String {
        capture.split(separator: "\n", omittingEmptySubsequences: false).prefix(38).joined(separator: "\n")
    }

    @Test("the placeholder is drawn first, the image (drawn differently) once the server answers")
    func placeholderThenImage() async throws {
        let server = try await TestHTTPServer.start()
        let dir = try TempDir()
        try Samples.solidPNG(red: 0, green: 200, blue: 0).write(to: dir.url.appendingPathComponent("P.png"))
        let body = try Samples.solidPNG(red: 200, green: 0, blue: 0)
        server.route(
            "/held.png", TestHTTPServer.Route(headers: [("Content-Type", "image/png")], body: body, held: true))
        let tmux = try await TmuxSession(
            running: Self.shellLine([
                "--symbols", "--placeholder", dir.path("P.png"), "--cache-dir", dir.path("cache"),
                server.url("/held.png").absoluteString,
            ]))
        do {
            await server.waitForRequests("/held.png")
            let loading = try await tmux.capture { $0.contains("loading") && Self.picture($0).contains(Samples.green) }
            #expect(Self.picture(loading).contains(Samples.green), "the placeholder while loading:\n\(loading)")
            #expect(!Self.picture(loading).contains(Samples.red))
            #expect(!loading.contains("kf-exit="))
            server.release("/held.png")
            let done = try await tmux.capture { $0.contains("kf-exit=") }
            #expect(done.contains("kf-exit=0"), "\(done)")
            #expect(Self.picture(done).contains(Samples.red), "the image at the end:\n\(done)")
            #expect(!Self.picture(done).contains(Samples.green))
            #expect(!done.contains("loading"))
        } catch {
            await tmux.kill()
            throw error
        }
        await tmux.kill()
        try await server.shutdown()
    }

    @Test("an animated GIF plays: the captured picture changes")
    func animatedGIFChanges() async throws {
        let dir = try TempDir()
        try Samples.animatedGIF(loopCount: 0).write(to: dir.url.appendingPathComponent("a.gif"))
        let tmux = try await TmuxSession(
            running: Self.shellLine(["--symbols", "--cache-dir", dir.path("cache"), dir.path("a.gif")]))
        do {
            let first = try await tmux.capture { Self.picture($0).contains("\u{1B}[") }
            let firstPicture = Self.picture(first)
            #expect(firstPicture.contains("\u{1B}["), "something drawn:\n\(first)")
            let later = try await tmux.capture { Self.picture($0) != firstPicture }
            #expect(Self.picture(later) != firstPicture, "the frames never changed")
            #expect(!later.contains("kf-exit="), "a GIF that loops forever keeps playing")
        } catch {
            await tmux.kill()
            throw error
        }
        await tmux.kill()
    }

    @Test("--loops 2 plays an endlessly looping GIF twice, then kf view exits")
    func loopsEnd() async throws {
        let dir = try TempDir()
        try Samples.animatedGIF(loopCount: 0).write(to: dir.url.appendingPathComponent("a.gif"))
        let tmux = try await TmuxSession(
            running: Self.shellLine(["--symbols", "--loops", "2", "--cache-dir", dir.path("cache"), dir.path("a.gif")]))
        let done = try await tmux.capture { $0.contains("kf-exit=") }
        await tmux.kill()
        #expect(done.contains("kf-exit=0"), "\(done)")
    }

    @Test("several sources make a grid; one that fails shows its error in its cell, and the exit status is 1")
    func badSourceInGrid() async throws {
        let dir = try TempDir()
        try Samples.solidPNG(red: 200, green: 0, blue: 0).write(to: dir.url.appendingPathComponent("good.png"))
        let tmux = try await TmuxSession(
            running: Self.shellLine([
                "--symbols", "--cache-dir", dir.path("cache"), dir.path("good.png"), dir.path("missing.png"),
            ]))
        let done = try await tmux.capture { $0.contains("kf-exit=") }
        await tmux.kill()
        #expect(done.contains("kf-exit=1"), "\(done)")
        #expect(done.contains("error:"), "\(done)")
        #expect(done.contains(Samples.red), "the good source is still drawn")
        // Two cells side by side: the error is in the right half of its line.
        let errorLine = try #require(done.split(separator: "\n").first { $0.contains("error:") })
        #expect(!errorLine.hasPrefix("error:"))
    }

    @Test("Ctrl-C stops an endless animation: exit status 130, the cursor shown again")
    func interrupt() async throws {
        let dir = try TempDir()
        try Samples.animatedGIF(loopCount: 0).write(to: dir.url.appendingPathComponent("a.gif"))
        let tmux = try await TmuxSession(
            running: Self.shellLine(["--symbols", "--cache-dir", dir.path("cache"), dir.path("a.gif")]))
        do {
            _ = try await tmux.capture { Self.picture($0).contains("\u{1B}[") }
            #expect(try await tmux.display("#{cursor_flag}") == "0", "the cursor is hidden while drawing")
            try await tmux.sendKeys("C-c")
            let done = try await tmux.capture { $0.contains("kf-exit=") }
            #expect(done.contains("kf-exit=130"), "\(done)")
            #expect(try await tmux.display("#{cursor_flag}") == "1")
        } catch {
            await tmux.kill()
            throw error
        }
        await tmux.kill()
    }

    @Test("a terminal that reports no size: the grid is 80x24")
    func noSizeReported() async throws {
        let dir = try TempDir()
        try Samples.solidPNG(red: 200, green: 0, blue: 0).write(to: dir.url.appendingPathComponent("good.png"))
        let tmux = try await TmuxSession(
            running: "stty rows 0 cols 0; "
                + Self.shellLine([
                    "--symbols", "--cache-dir", dir.path("cache"), dir.path("good.png"), dir.path("missing.png"),
                ]))
        let done = try await tmux.capture { $0.contains("kf-exit=") }
        await tmux.kill()
        // Colours off: only the text and where it sits.
        let lines = done.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.replacing(#/\u{1B}\[[0-9;]*m/#, with: "") }
        // Two cells of 39 columns in 80: the second starts at column 40; a cell's status line is row 24.
        let errorLine = try #require(lines.firstIndex { $0.contains("error:") }, "\(done)")
        #expect(errorLine == 23)
        #expect(lines[errorLine].prefix(40).allSatisfy { $0 == " " }, "\(done)")
        #expect(lines[errorLine].dropFirst(40).hasPrefix("error:"))
    }

    @Test("standard output that is not a terminal: a one-line error, exit status 1")
    func notATerminal() async throws {
        let dir = try TempDir()
        try Samples.solidPNG(red: 1, green: 2, blue: 3).write(to: dir.url.appendingPathComponent("a.png"))
        let run = try await Kf.run(["view", dir.path("a.png"), "--cache-dir", dir.path("cache")])
        #expect(run.status == 1)
        #expect(run.stderrLines.count == 1)
        #expect(run.stderr.contains("standard output is not one"))
        #expect(run.stderr.contains("-o FILE"))
        #expect(run.stdout.isEmpty)
    }

    @Test("-o FILE writes the image as a PNG, without a terminal; several sources make a sheet")
    func outputFile() async throws {
        let dir = try TempDir()
        try Samples.coordinatePNG(width: 120, height: 80).write(to: dir.url.appendingPathComponent("a.png"))
        let one = try await Kf.run(["view", dir.path("a.png"), "-o", dir.path("one.png"), "--cache-dir", dir.path("c")])
        #expect(one.status == 0, "\(one.stderr)")
        let image = try KFCrossPlatformImage(decoding: Data(contentsOf: dir.url.appendingPathComponent("one.png")))
        #expect(image.pixelWidth == 120 && image.pixelHeight == 80)
        #expect(Array(image.kf.rgbaPixels()[(10 * 120 + 30) * 4..<(10 * 120 + 30) * 4 + 3]) == [30, 10, 90])

        let two = try await Kf.run([
            "view", dir.path("a.png"), dir.path("missing.png"), dir.path("a.png"), "-o", dir.path("sheet.png"),
            "--cache-dir", dir.path("c"),
        ])
        #expect(two.status == 1)
        #expect(two.stderrLines.count == 1 && two.stderr.contains("missing.png"))
        let sheet = try KFCrossPlatformImage(decoding: Data(contentsOf: dir.url.appendingPathComponent("sheet.png")))
        #expect(sheet.pixelWidth > 240)
    }

    @Test("a bad --size is refused")
    func badSize() async throws {
        let run = try await Kf.run(["view", "a.png", "--size", "80by24"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("--size must be COLSxROWS"))
    }
}

extension Samples {
    /// How a capture writes the foreground colours of `solidPNG(red: 200, green: 0, blue: 0)` and of
    /// `solidPNG(red: 0, green: 200, blue: 0)`.
    static let red = "200;0;0"
    static let green = "0;200;0"

    /// A 64x64 PNG of one colour.
    static func solidPNG(red: UInt8, green: UInt8, blue: UInt8) throws -> Data {
        try solidImage(red: red, green: green, blue: blue).kf.encoded(as: .PNG)
    }

    static func solidImage(red: UInt8, green: UInt8, blue: UInt8) throws -> KFCrossPlatformImage {
        let pixels = [UInt8]((0..<(64 * 64)).flatMap { _ in [red, green, blue, 255] })
        return try KFCrossPlatformImage(rgbaPixels: pixels, width: 64, height: 64)
    }

    /// A GIF of three solid frames (red, green, blue), 0.2 s each.
    static func animatedGIF(loopCount: Int) throws -> Data {
        let frames = try [(255, 0, 0), (0, 255, 0), (0, 0, 255)].map {
            try solidImage(red: UInt8($0.0), green: UInt8($0.1), blue: UInt8($0.2))
        }
        let image = try KFCrossPlatformImage(frames: frames, frameDurations: [0.2, 0.2, 0.2], loopCount: loopCount)
        return try #require(image.kf.data(format: .GIF))
    }
}
