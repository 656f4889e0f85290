import CVips
import Foundation

/// Another image drawn over this one (a watermark): composited with its alpha at given corners, the parts outside
/// the image left out, on every frame.
extension KFCrossPlatformImage {
    /// `overlay` (its first frame) resized to `size`, its alpha lowered by `transparency` levels (0...255), composited
    /// over this image with its top-left corner at each of `corners` (corners may lie outside: the part that falls
    /// on the image is drawn).
    package func drawing(
        _ overlay: KFCrossPlatformImage, size: (width: Int, height: Int), transparency: Int,
        at corners: [(x: Int, y: Int)]
    ) throws(VipsError) -> KFCrossPlatformImage {
        try VipsRuntime.start()
        guard !overlay.isEmptyImage else { throw Self.emptyImageError }
        var mark = try (overlay.animation == nil ? overlay.storage : overlay.storage.frame(0)).srgb8().withAlpha()
        if mark.width != size.width || mark.height != size.height {
            mark = try mark.resized(width: max(1, size.width), height: max(1, size.height)).withAlpha()
        }
        if transparency > 0 {
            mark = try mark.linear([1, 1, 1, 1], [0, 0, 0, -Double(min(transparency, 255))])
        }
        let drawn = mark
        return try mappingFrames { frame throws(VipsError) in
            var image = try frame.srgb8()
            for corner in corners {
                image = try image.drawing(drawn, x: corner.x, y: corner.y)
            }
            return image
        }
    }
}

extension VipsImageHandle {
    /// `overlay` composited over the part of this image it covers with its top-left corner at `x`, `y`; the image
    /// keeps its size and its bands (alpha only when it had some).
    func drawing(_ overlay: VipsImageHandle, x: Int, y: Int) throws(VipsError) -> VipsImageHandle {
        let left = max(0, x)
        let top = max(0, y)
        let right = min(width, x + overlay.width)
        let bottom = min(height, y + overlay.height)
        guard left < right, top < bottom else { return self }
        let part = try overlay.cropped(x: left - x, y: top - y, width: right - left, height: bottom - top)
        var covered = try cropped(x: left, y: top, width: right - left, height: bottom - top)
            .composited(with: part, mode: VIPS_BLEND_MODE_OVER)
        if !hasAlpha { covered = try covered.colourBands() }
        return try apply("insert") { cvips_insert($0, covered.pointer, $1, Int32(left), Int32(top)) }
    }
}
