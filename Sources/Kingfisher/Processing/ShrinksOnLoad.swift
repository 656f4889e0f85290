package import Foundation

/// A processor that decodes image data shrunk on load (libjpeg's DCT scaling, libwebp's scaling while it decodes) to
/// fit a box. ``ImageWorkers`` asks it before admitting a large decode: some decodes of a large image, shrunk, hold
/// a few rows at a time instead of the whole image, and need not wait for each other.
package protocol ShrinksOnLoad: ImageProcessor {
    /// The side, in pixels, of the box this processor decodes `data` to fit, or `nil` when it decodes it whole.
    func shrinkOnLoadSide(for data: Data, scale: CGFloat) -> Int?
}

extension DownsamplingImageProcessor: ShrinksOnLoad {
    package func shrinkOnLoadSide(for data: Data, scale: CGFloat) -> Int? {
        let side = max(size.width, size.height) * scale
        guard side.isFinite, side > 0 else { return nil }
        return Int(min(side, CGFloat(Int32.max)).rounded(.up))
    }
}
