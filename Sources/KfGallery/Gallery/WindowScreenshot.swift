import CGtk
import Foundation
import KfCommandKit
import Kingfisher

/// A PNG of what a window shows now, rendered by its own renderer.
enum WindowScreenshot {
    /// Writes `widget`'s pixels to `url` as a PNG; throws when it has none (not shown yet) or cannot be written.
    static func write(_ widget: UnsafeMutablePointer<GtkWidget>, to url: URL) throws(CommandFailure) {
        var width: Int32 = 0
        var height: Int32 = 0
        guard let rgba = cgtk_widget_render_rgba(widget, &width, &height) else {
            throw CommandFailure("the window has nothing drawn to take a screenshot of")
        }
        defer { g_free(rgba) }
        let pixels = [UInt8](UnsafeBufferPointer(start: rgba, count: Int(width) * Int(height) * 4))
        do {
            let image = try KFCrossPlatformImage(rgbaPixels: pixels, width: Int(width), height: Int(height))
            try image.kf.encoded(as: .PNG).write(to: url)
        } catch {
            throw CommandFailure("cannot write the screenshot \(url.path): \(FailureMessage.plain(error))")
        }
    }
}
