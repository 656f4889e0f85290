import Foundation
import Kingfisher
import KingfisherLocking
import KingfisherTerminal
import Testing

/// A ``TerminalScreen`` writing into a fresh file, and what was written.
final class ScreenFile: Sendable {
    let url: URL
    let screen: TerminalScreen

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("kf-terminal-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        screen = TerminalScreen(fileHandle: try FileHandle(forWritingTo: url))
    }

    var text: String { (try? String(contentsOf: url, encoding: .utf8)) ?? "" }

    deinit { try? FileManager.default.removeItem(at: url) }
}

@Suite("TerminalImageView", .timeLimit(.minutes(1)))
struct TerminalImageViewTests {
    let renderer = TerminalRenderer(mode: .symbols, environment: ["TERM": "xterm-256color"])
    let region = TerminalRegion(column: 3, row: 2, size: TerminalGridSize(columns: 20, rows: 11))

    @Test("setting the image returns at once; the picture is drawn at the region, on rows 0 to 9 of it")
    func drawsImage() async throws {
        let file = try ScreenFile()
        let view = TerminalImageView(screen: file.screen, region: region, renderer: renderer)
        view.image = try solid(200, 10, 10)
        #expect(view.image?.pixelWidth == 32)
        await view.waitUntilIdle()
        let text = file.text
        #expect(text.contains("200;10;10"))
        // Restore the anchor, down 2 rows and right 3 columns: the region's first cell.
        #expect(text.contains("\u{1B}8\u{1B}[2B\u{1B}[3C"))
        #expect(text.contains("\u{1B}8\u{1B}[11B\u{1B}[3C"))  // the last picture row (2 + 9)
    }

    @Test("kitty: each new picture first deletes the placements on the view's first row, then places itself")
    func kittyReplacesItsPicture() async throws {
        let file = try ScreenFile()
        let kitty = TerminalRenderer(mode: .kitty, environment: ["TERM": "xterm-kitty"])
        let view = TerminalImageView(screen: file.screen, region: region, renderer: kitty)
        view.image = try solid(200, 10, 10)
        await view.waitUntilIdle()
        view.image = try solid(10, 200, 10)
        await view.waitUntilIdle()
        let text = file.text
        let delete = "\u{1B}_Ga=d,d=C\u{1B}\\"
        // One delete per column of the 20-column area, before each of the two pictures.
        #expect(text.components(separatedBy: delete).count - 1 == 2 * 20)
        let lastDelete = try #require(text.range(of: delete, options: .backwards))
        let lastPicture = try #require(text.range(of: "\u{1B}_Ga=T", options: .backwards))
        #expect(lastDelete.upperBound <= lastPicture.lowerBound)
    }

    @Test("the last row of the region shows the message")
    func message() async throws {
        let file = try ScreenFile()
        let view = TerminalImageView(screen: file.screen, region: region, renderer: renderer)
        view.message = "error: not found"
        await view.waitUntilIdle()
        #expect(file.text.contains("\u{1B}8\u{1B}[12B\u{1B}[3C\u{1B}[0m\u{1B}[20Xerror: not found"))
    }

    @Test("an animation with a loop count plays every frame, then the view is idle")
    func animationPlays() async throws {
        let file = try ScreenFile()
        let view = TerminalImageView(screen: file.screen, region: region, renderer: renderer, loopCount: 2)
        view.image = try KFCrossPlatformImage(
            frames: [solid(255, 0, 0), solid(0, 255, 0), solid(0, 0, 255)], frameDurations: [0.02, 0.02, 0.02])
        await view.waitUntilIdle()
        let text = file.text
        let reds = text.components(separatedBy: "255;0;0").count - 1
        let blues = text.components(separatedBy: "0;0;255").count - 1
        #expect(reds > 0 && blues > 0)
        #expect(reds == blues, "two whole plays: as many red rows drawn as blue")
        #expect(text.hasSuffix("m") || text.hasSuffix("\u{1B}[0m"))
    }

    @Test("a new image stops the animation playing")
    func newImageStopsAnimation() async throws {
        let file = try ScreenFile()
        let view = TerminalImageView(screen: file.screen, region: region, renderer: renderer, loopCount: 0)
        view.image = try KFCrossPlatformImage(
            frames: [solid(255, 0, 0), solid(0, 255, 0)], frameDurations: [5, 5])
        view.image = try solid(7, 7, 7)
        await view.waitUntilIdle()  // would never return (the time limit fails it) if the endless animation played
        let text = file.text
        #expect(text.contains("7;7;7"))
        #expect(!text.contains("0;255;0"), "the animation's second frame was never drawn")
    }

    @Test("a fade draws blended frames, then the new image, then completes")
    func fade() async throws {
        let file = try ScreenFile()
        let view = TerminalImageView(screen: file.screen, region: region, renderer: renderer)
        let old = try solid(0, 0, 0)
        let new = try solid(200, 200, 200)
        view.image = old
        let finished = await withSanitizedCheckedContinuation { continuation in
            view.transition(.fade(0.2), from: old, to: new) { continuation.resume(returning: $0) }
        }
        await view.waitUntilIdle()
        #expect(finished)
        #expect(view.image === new)
        let text = file.text
        #expect(text.contains("100;100;100"), "the halfway frame of two")
        #expect(text.range(of: "100;100;100")!.lowerBound < text.range(of: "200;200;200")!.lowerBound)
    }

    @Test("setImage: the placeholder first, the spinner while loading, the image when done")
    func setImageFromFile() async throws {
        let file = try ScreenFile()
        let view = TerminalImageView(screen: file.screen, region: region, renderer: renderer)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kf-view-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let imageURL = directory.appendingPathComponent("blue.png")
        try solid(10, 10, 200).kf.encoded(as: .PNG).write(to: imageURL)
        let cache = try ImageCache(name: "terminal-test", cacheDirectoryURL: directory.appendingPathComponent("cache"))
        let downloader = ImageDownloader(name: "terminal-test")
        let manager = KingfisherManager(downloader: downloader, cache: cache)
        view.kf.indicatorType = .activity
        let result = await withSanitizedCheckedContinuation { continuation in
            KF.source(.provider(BytesAfterLoadingShows(fileURL: imageURL, screen: file)))
                .manager(manager)
                .placeholder(try? solid(0, 200, 0))
                .onSuccess { _ in continuation.resume(returning: true) }
                .onFailure { _ in continuation.resume(returning: false) }
                .set(to: view)
        }
        await view.waitUntilIdle()
        try await downloader.shutdown()
        #expect(result)
        let text = file.text
        let placeholder = try #require(text.range(of: "0;200;0"))
        let loading = try #require(text.range(of: "loading"))
        let image = try #require(text.range(of: "10;10;200"))
        #expect(placeholder.lowerBound < image.lowerBound)
        #expect(loading.lowerBound < image.lowerBound)
    }
}

/// A file's bytes, handed over once the screen shows what the view draws while loading (the placeholder and the
/// spinner): on a busy machine a local file could otherwise load before the view's first drawing, which then
/// rightly skips the placeholder for the newer image.
private struct BytesAfterLoadingShows: ImageDataProvider {
    let fileURL: URL
    let screen: ScreenFile

    var cacheKey: String { fileURL.absoluteString }

    func data() async throws -> Data {
        let giveUp = ContinuousClock.now + .seconds(30)  // a safety net: the test then fails on what is missing
        while ContinuousClock.now < giveUp {
            let text = screen.text
            if text.contains("0;200;0") && text.contains("loading") { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        return try Data(contentsOf: fileURL)
    }
}

@Suite("TerminalImageView playing decoded animations", .timeLimit(.minutes(1)))
struct TerminalAnimationDecodingTests {
    let renderer = TerminalRenderer(mode: .symbols, environment: ["TERM": "xterm-256color"])

    @Test(
        "an animated GIF or WebP plays every frame, as often as its own loop count says",
        arguments: [ImageFormat.GIF, .WebP])
    func decodedAnimationPlays(format: ImageFormat) async throws {
        let animated = try KFCrossPlatformImage(
            frames: [solid(255, 0, 0), solid(0, 0, 255)], frameDurations: [0.03, 0.03], loopCount: 3)
        let data = try #require(animated.kf.data(format: format))
        let decoded = try KFCrossPlatformImage(decoding: data)
        #expect(decoded.kf.imageFrameCount == 2)
        #expect(decoded.kf.loopCount == 3)
        let region = TerminalRegion(size: TerminalGridSize(columns: 16, rows: 9))
        // How often one drawing of the red frame names its colour.
        let single = try ScreenFile()
        let still = TerminalImageView(screen: single.screen, region: region, renderer: renderer)
        still.image = try solid(255, 0, 0)
        await still.waitUntilIdle()
        let perFrame = single.text.components(separatedBy: "255;0;0").count - 1
        #expect(perFrame > 0)

        let file = try ScreenFile()
        let view = TerminalImageView(screen: file.screen, region: region, renderer: renderer)
        view.image = decoded
        await view.waitUntilIdle()  // a loop count of 3 ends; the time limit fails a loop that never does
        let text = file.text
        let reds = text.components(separatedBy: "255;0;0").count - 1
        let blues = text.components(separatedBy: "0;0;255").count - 1
        #expect(reds == 3 * perFrame, "three plays of the red frame")
        #expect(blues == 3 * perFrame, "three plays of the blue frame")
    }
}
