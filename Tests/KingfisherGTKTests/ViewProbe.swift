import CGtk
import Foundation
import Kingfisher
import Testing

@testable import KingfisherGTK

/// Views in windows and what they draw, for the GTK tests.
enum ViewProbe {
    /// A `width` x `height` image of one colour.
    static func solid(_ rgba: [UInt8], width: Int, height: Int) throws -> KFCrossPlatformImage {
        try KFCrossPlatformImage(
            rgbaPixels: [UInt8]((0..<width * height).flatMap { _ in rgba }), width: width, height: height)
    }

    static func solidPNG(width: Int, height: Int, rgba: [UInt8]) throws -> Data {
        try #require(try solid(rgba, width: width, height: height).kf.pngRepresentation())
    }

    /// A new view of `width` x `height` points in a window of its own, presented; and the window.
    static func presentedView(width: Int32, height: Int32) async -> (KFImageView, GTKObject<GtkWidget>) {
        await onGTK { () -> (KFImageView, GTKObject<GtkWidget>) in
            let window = gtk_window_new()!
            let view = KFImageView(width: width, height: height)
            gtk_window_set_child(cgtk_window(window), view.widget.pointer)
            gtk_window_present(cgtk_window(window))
            return (view, GTKObject(window))
        }
    }

    /// A label the test holds a reference to (give it back with ``release(_:)``): a placeholder lets its own go
    /// once the load is done with it, and a label asked afterwards whether it was removed must still be there to
    /// answer (a freed one makes GTK print a critical and answer nil whatever happened).
    static func heldLabel(_ text: String) async -> GTKObject<GtkWidget> {
        await onGTK { () -> GTKObject<GtkWidget> in
            let label = gtk_label_new(text)!
            _ = cgtk_object_ref_sink(label)
            return GTKObject(label)
        }
    }

    /// Gives back the test's reference to a widget from ``heldLabel(_:)``.
    static func release(_ widget: GTKObject<GtkWidget>) async {
        await onGTK { cgtk_object_unref(widget.pointer) }
    }

    /// Calls `body` on the GTK thread right after each frame `widget`'s window paints: a render of a widget shows
    /// its last painted frame (not changes queued since), so a frame read there is the one painted, with the state
    /// it was painted from.
    static func afterEachPaint(of widget: GTKObject<GtkWidget>, _ body: @escaping @Sendable () -> Void) async {
        await onGTK {
            guard let clock = gtk_widget_get_frame_clock(widget.pointer) else { return }
            GTKCallbacks.connect(UnsafeMutableRawPointer(clock), "after-paint", body)
        }
    }

    /// Returns once the main loop has run frames covering `seconds` of frame-clock time, counted by a window of its
    /// own that ticks for it (then goes): the event after which something the frame clock drives (an animation's
    /// steps, a redraw) would have shown itself, measured on that clock rather than as a wall-clock wait that a
    /// stalled main loop passes without drawing a frame.
    static func framesPass(seconds: Double) async {
        let (_, window) = await presentedView(width: 8, height: 8)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            GTKMainContext.perform {
                var first: Int64?
                GTKCallbacks.addTick(to: window.pointer) { frameTime in
                    let start = first ?? frameTime
                    first = start
                    guard frameTime - start >= Int64(seconds * 1_000_000) else { return true }
                    continuation.resume()
                    return false
                }
            }
        }
        await onGTK { gtk_window_destroy(cgtk_window(window.pointer)) }
    }

    /// On the GTK thread: what `view` shows now, as straight RGBA rows.
    static func rendered(_ view: KFImageView) -> (pixels: [UInt8], width: Int, height: Int)? {
        var width: Int32 = 0
        var height: Int32 = 0
        guard let rgba = cgtk_widget_render_rgba(view.widget.pointer, &width, &height) else { return nil }
        defer { g_free(rgba) }
        let pixels = [UInt8](UnsafeBufferPointer(start: rgba, count: Int(width) * Int(height) * 4))
        return (pixels, Int(width), Int(height))
    }

    /// A cache of its own, in a directory of this test process's that is removed when the process exits (the
    /// caches outlive the tests that made them: writes not waited for may still land).
    static func temporaryCache() throws -> ImageCache {
        try ImageCache(
            name: "gtk-test", cacheDirectoryURL: scratch.appendingPathComponent(UUID().uuidString, isDirectory: true))
    }

    /// The directory, made known to the exit handler on first use.
    private static let scratch: URL = {
        atexit { try? FileManager.default.removeItem(at: ViewProbe.scratchPath) }
        return scratchPath
    }()

    /// This process's directory (computed, so the exit handler captures nothing).
    private static var scratchPath: URL {
        FileManager.default.temporaryDirectory.appendingPathComponent(
            "kf-gtk-tests-\(ProcessInfo.processInfo.processIdentifier)", isDirectory: true)
    }

    /// The view's RGBA pixel at (x, y) as drawn now.
    static func pixel(of view: KFImageView, x: Int, y: Int) async -> [UInt8]? {
        await onGTK { () -> [UInt8]? in
            guard let shown = rendered(view), x < shown.width, y < shown.height else { return nil }
            let offset = (y * shown.width + x) * 4
            return Array(shown.pixels[offset..<offset + 4])
        }
    }

    /// On the GTK thread: how many pixels of the centre row (or column) are drawn, and whether they are blue.
    static func extent(_ view: KFImageView, horizontal: Bool) -> (count: Int, blue: Bool) {
        guard let shown = rendered(view) else { return (0, false) }
        var count = 0
        var blueness = 0
        for i in 0..<(horizontal ? shown.width : shown.height) {
            let (x, y) = horizontal ? (i, shown.height / 2) : (shown.width / 2, i)
            let offset = (y * shown.width + x) * 4
            guard shown.pixels[offset + 3] > 200 else { continue }
            count += 1
            blueness += shown.pixels[offset + 2] > shown.pixels[offset + 1] ? 1 : -1
        }
        return (count, blueness > 0)
    }

    /// On the GTK thread: the centre pixel as drawn now.
    static func renderedCentre(_ view: KFImageView) -> [UInt8]? {
        guard let shown = rendered(view) else { return nil }
        let offset = ((shown.height / 2) * shown.width + shown.width / 2) * 4
        return Array(shown.pixels[offset..<offset + 4])
    }
}
