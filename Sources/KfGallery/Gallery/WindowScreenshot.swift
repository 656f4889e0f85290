import CGtk
import Foundation
import KfCommandKit
import Kingfisher

/// A PNG of what a window shows now, rendered by its own renderer: the pixels are read on the GTK thread, the PNG
/// may be made and written on any.
enum WindowScreenshot {
    /// A window's pixels, premultiplied B8G8R8A8 rows (cairo's layout) as rendered.
    struct Pixels: Sendable {
        let bgra: [UInt8]
        let width: Int
        let height: Int
    }

    /// What `widget` shows now, drawn by `renderer` (`nil`: its window's); throws when it has nothing drawn (not
    /// shown yet). On the GTK thread.
    static func capture(
        _ widget: UnsafeMutablePointer<GtkWidget>, renderer: OpaquePointer? = nil
    ) throws(CommandFailure) -> Pixels {
        var width: Int32 = 0
        var height: Int32 = 0
        guard let bgra = cgtk_widget_render_bgra(widget, renderer, &width, &height) else {
            throw CommandFailure("the window has nothing drawn to take a screenshot of")
        }
        defer { g_free(bgra) }
        let bytes = [UInt8](UnsafeBufferPointer(start: bgra, count: Int(width) * Int(height) * 4))
        return Pixels(bgra: bytes, width: Int(width), height: Int(height))
    }

    /// Writes `pixels` to `url` as a PNG. On any thread.
    static func write(_ pixels: Pixels, to url: URL) throws(CommandFailure) {
        var rgba = pixels.bgra
        rgba.withUnsafeMutableBufferPointer { cgtk_bgra_to_rgba($0.baseAddress, gsize(pixels.width * pixels.height)) }
        do {
            let image = try KFCrossPlatformImage(rgbaPixels: rgba, width: pixels.width, height: pixels.height)
            try image.kf.encoded(as: .PNG).write(to: url)
        } catch {
            throw CommandFailure("cannot write the screenshot \(url.path): \(FailureMessage.plain(error))")
        }
    }

    /// Writes what `widget` shows now to `url` as a PNG. On the GTK thread.
    static func write(_ widget: UnsafeMutablePointer<GtkWidget>, to url: URL) throws(CommandFailure) {
        try write(capture(widget), to: url)
    }
}
