import Foundation
import Kingfisher
import KingfisherLocking
import KingfisherTerminal
import KingfisherTestSupport
import XCTest

/// A terminal view loading a progressive JPEG with `.progressiveJPEG` draws its previews before the image.
final class TerminalImageViewProgressiveTests: XCTestCase {
    private let region = TerminalRegion(size: TerminalGridSize(columns: 20, rows: 11))
    private let kitty = TerminalRenderer(mode: .kitty, environment: ["TERM": "xterm-kitty"])

    /// How many pictures the view drew: kitty deletes the placements of its first row (one per column) before each.
    private func pictures(in text: String) -> Int {
        (text.components(separatedBy: "\u{1B}_Ga=d,d=C\u{1B}\\").count - 1) / region.size.columns
    }

    private func draw(_ url: URL, manager: KingfisherManager, progressive: ImageProgressive?) async throws -> String {
        let file = try ScreenFile()
        let view = TerminalImageView(screen: file.screen, region: region, renderer: kitty)
        let loaded = await withSanitizedCheckedContinuation { continuation in
            KF.url(url).manager(manager).progressiveJPEG(progressive).forceRefresh()
                .onSuccess { _ in continuation.resume(returning: true) }
                .onFailure { _ in continuation.resume(returning: false) }
                .set(to: view)
        }
        XCTAssertTrue(loaded)
        await view.waitUntilIdle()
        return file.text
    }

    func testPreviewsAreDrawnBeforeTheImage() async throws {
        let server = try await TestHTTPServer.start()
        let photo = TestImages.progressiveJPEG(width: 320, height: 240)
        server.route(
            "/photo.jpg",
            TestHTTPServer.Route(
                body: photo, chunkSize: 1024, delayBetweenChunks: .milliseconds(15), contentLength: Int64(photo.count)))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kf-tv-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let downloader = ImageDownloader(name: "terminal-progressive")
        let manager = KingfisherManager(
            downloader: downloader, cache: try ImageCache(name: "terminal-progressive", cacheDirectoryURL: directory))

        let plain = try await draw(server.url("/photo.jpg"), manager: manager, progressive: nil)
        let previewed = try await draw(
            server.url("/photo.jpg"), manager: manager,
            progressive: ImageProgressive(isBlur: false, isFastestScan: false, scanInterval: 0))
        try await downloader.shutdown()
        try await server.shutdown()

        // Without previews: the start (the image cleared), then the image.
        XCTAssertEqual(pictures(in: plain), 2)
        XCTAssertGreaterThanOrEqual(pictures(in: previewed), pictures(in: plain) + 2, "previews before the image")
    }
}
