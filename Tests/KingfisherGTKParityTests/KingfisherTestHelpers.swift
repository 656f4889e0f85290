import CGtk
import Foundation
import Kingfisher
import KingfisherGTK
import KingfisherLocking
import KingfisherTestSupport
import XCTest

// Kingfisher's test helpers (`testURLs`, `stub`, `delayedStub`, the test images, `cleanDefaultCache`), written for
// Linux: its URLSession stubs become routes on a real loopback server, started afresh for each test.

extension Result {
    /// Kingfisher's test helpers' `value` and `error`.
    var value: Success? { try? get() }
    var error: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// The loopback server of the running test.
let currentServer = Locked<TestHTTPServer?>(nil)

/// Runs `body` to its end from synchronous test code (setUp, tearDown) on the main thread.
func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let done = DispatchSemaphore(value: 0)
    let result = Locked<Result<T, any Error>?>(nil)
    Task {
        do {
            let value = try await body()
            result.withLock { $0 = .success(value) }
        } catch {
            result.withLock { $0 = .failure(error) }
        }
        done.signal()
    }
    done.wait()
    return try result.withLock { $0! }.get()
}

private var server: TestHTTPServer {
    guard let server = currentServer.withLock({ $0 }) else { fatalError("no test server: call startServer() first") }
    return server
}

/// Starts the test's loopback server.
func startServer() throws {
    let started = try blocking { try await TestHTTPServer.start() }
    currentServer.withLock { $0 = started }
}

/// Stops the test's loopback server (and so every response it still holds).
func stopServer() throws {
    guard let server = currentServer.withLock({ $0 }) else { return }
    currentServer.withLock { $0 = nil }
    try blocking { try await server.shutdown() }
}

/// Ten URLs on the test's server, answered as the test stubs them (404 otherwise).
var testURLs: [URL] { (0..<10).map { server.url("/image-\($0)") } }

/// Answers `url` with `data`; `length` is Kingfisher's stub parameter for a declared length, here the body is
/// sent in pieces of that many bytes, so progress is reported as it arrives.
func stub(_ url: URL, data: Data, length: Int? = nil) {
    server.route(url.path, TestHTTPServer.Route(body: data, chunkSize: length))
}

/// Answers `url` with the status `errorCode` (Kingfisher's stub fails the request with an `NSError` of that code;
/// a real server answers with the status).
func stub(_ url: URL, errorCode: Int) {
    server.route(url.path, .status(errorCode))
}

/// A response held until ``go()``: the request arrives and waits.
struct DelayedStub {
    let path: String
    @discardableResult
    func go() -> Bool {
        server.release(path)
        return true
    }
}

func delayedStub(_ url: URL, data: Data) -> DelayedStub {
    server.route(url.path, TestHTTPServer.Route(body: data, held: true))
    return DelayedStub(path: url.path)
}

/// Runs `block` on the main queue after `seconds`.
func delay(_ seconds: Double, block: @escaping @Sendable () -> Void) {
    DispatchQueue.main.asyncAfter(deadline: .now() + seconds, execute: block)
}

/// A 64 x 64 PNG with a gradient (Kingfisher's test image is a small PNG too).
let testImageData: Data = {
    let width = 64
    let height = 64
    var pixels: [UInt8] = []
    for y in 0..<height {
        for x in 0..<width { pixels += [UInt8(x * 4), UInt8(y * 4), 128, 255] }
    }
    let image = try! KFCrossPlatformImage(rgbaPixels: pixels, width: width, height: height)
    return image.kf.pngRepresentation()!
}()

let testImage = KFCrossPlatformImage(data: testImageData)!

/// A JPEG of another picture.
let testImageJEPGData: Data = {
    let pixels = [UInt8]((0..<32 * 32).flatMap { _ in [200, 40, 40, 255] as [UInt8] })
    return try! KFCrossPlatformImage(rgbaPixels: pixels, width: 32, height: 32).kf.jpegRepresentation(
        compressionQuality: 0.9)!
}()

/// An animated GIF of 8 frames (as Kingfisher's test GIF).
let testImageGIFData: Data = {
    let frames = (0..<8).map { index -> KFCrossPlatformImage in
        let rgba: [UInt8] = [UInt8(index * 30), 0, UInt8(255 - index * 30), 255]
        return try! KFCrossPlatformImage(
            rgbaPixels: [UInt8]((0..<16 * 16).flatMap { _ in rgba }), width: 16, height: 16)
    }
    let animation = try! KFCrossPlatformImage(frames: frames, frameDurations: Array(repeating: 0.1, count: 8))
    return animation.kf.gifRepresentation()!
}()

extension KFCrossPlatformImage {
    /// Whether the two images draw the same pixels (Kingfisher compares Core Graphics renders).
    func renderEqual(to image: KFCrossPlatformImage) -> Bool {
        pixelWidth == image.pixelWidth && pixelHeight == image.pixelHeight && kf.rgbaPixels() == image.kf.rgbaPixels()
    }
}

/// The cache the tests' manager uses: one in a temporary directory per test (Kingfisher's tests clean the app's
/// default cache; here the default cache is the user's, which tests leave alone).
func cleanDefaultCache() {
    let cache = KingfisherManager.shared.cache
    cache.clearMemoryCache()
    try? blocking { await cache.clearDiskCache() }
}

func clearCaches(_ caches: [ImageCache]) {
    for cache in caches {
        cache.clearMemoryCache()
        try? blocking { await cache.clearDiskCache() }
    }
}

/// A flag a completion handler sets and the test reads (Kingfisher's tests capture a `var`; a `@Sendable`
/// handler may not change one).
final class Flag: Sendable {
    private let value = Locked(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}

/// Whether `widget` is a child of the view (Kingfisher's `imageView.subviews.contains(view)`). On the GTK thread.
func isLaid(_ widget: GTKObject<GtkWidget>, over view: KFImageView) -> Bool {
    gtk_widget_get_parent(widget.pointer) == view.widget.pointer
}

/// Whether `view`'s indicator widget is hidden (Kingfisher's `indicator!.view.isHidden`); `nil` when the view has
/// no indicator widget laid over it (where Kingfisher's force-unwrap would stop the test). On the GTK thread.
func indicatorIsHidden(_ view: KFImageView) -> Bool? {
    guard let widget = view.indicatorWidget, isLaid(widget, over: view) else { return nil }
    return gtk_widget_get_visible(widget.pointer) == 0
}
