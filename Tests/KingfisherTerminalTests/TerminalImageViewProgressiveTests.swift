import CVips
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

    /// A progressive JPEG of busy stripes and speckle made with libvips (ten scans).
    private func progressiveJPEG(width: Int, height: Int) -> Data {
        _ = ImageEngine.libvipsVersion  // starts libvips before calling it directly
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for index in bytes.indices {
            let (pixel, band) = index.quotientAndRemainder(dividingBy: 3)
            let (y, x) = pixel.quotientAndRemainder(dividingBy: width)
            bytes[index] = UInt8(
                truncatingIfNeeded: (x / 4 + y / 6 + band) % 2 * 90 + ((x &* 7919) ^ (y &* 104_729)) & 0x7F)
        }
        let raw = bytes.withUnsafeBytes {
            cvips_new_from_memory_copy(
                $0.baseAddress, $0.count, Int32(width), Int32(height), 3, Int32(VIPS_FORMAT_UCHAR.rawValue))!
        }
        var tagged: UnsafeMutablePointer<VipsImage>?
        precondition(cvips_copy_as(raw, &tagged, Int32(VIPS_INTERPRETATION_sRGB.rawValue)) == 0)
        cvips_unref(raw)
        defer { cvips_unref(tagged) }
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        precondition(cvips_jpeg_save_layout(tagged, &buffer, &length, 85, 1, 1, 0) == 0)
        defer { cvips_free(buffer) }
        return Data(bytes: buffer!, count: length)
    }

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
        let photo = progressiveJPEG(width: 320, height: 240)
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
