public import Foundation
import CVips

/// Which pixel gives the colour that trimming removes from the edges. Ours.
public enum TrimReference: String, Sendable, Hashable {
    case topLeft
    case bottomRight
}

extension KFCrossPlatformImage {
    /// Cuts away the border of one colour (the reference pixel's): the smallest rectangle holding every pixel
    /// that differs from it by more than `tolerance` in some band (0...255). An image that is all border is kept
    /// whole. Animations are trimmed by their first frame's border.
    package func trimming(reference: TrimReference, tolerance: Double) throws(VipsError) -> KFCrossPlatformImage {
        guard let box = try trimRectangle(reference: reference, tolerance: tolerance),
            box.width < pixelWidth || box.height < pixelHeight
        else { return self }
        return try croppingPixels(x: box.x, y: box.y, width: box.width, height: box.height)
    }

    /// The rectangle ``trimming(reference:tolerance:)`` keeps, in pixels; `nil` when the image is all border.
    package func trimRectangle(
        reference: TrimReference, tolerance: Double
    ) throws(VipsError) -> (x: Int, y: Int, width: Int, height: Int)? {
        try VipsRuntime.start()
        guard !isEmptyImage else { throw Self.emptyImageError }
        let first = try storage.frame(0)
        let x = reference == .topLeft ? 0 : first.width - 1
        let y = reference == .topLeft ? 0 : first.height - 1
        var background = [Double](repeating: 0, count: 8)
        let bands = cvips_pixel_at(first.pointer, Int32(x), Int32(y), &background, Int32(background.count))
        guard bands > 0 else { throw VipsRuntime.takeError("getpoint") }
        var left: Int32 = 0
        var top: Int32 = 0
        var width: Int32 = 0
        var height: Int32 = 0
        let threshold = tolerance.isFinite ? min(max(tolerance, 0), 255) : 0
        // libvips flattens alpha against the background first: it takes the colour bands only.
        let colourBands = min(first.hasAlpha ? bands - 1 : bands, Int32(background.count))
        guard
            cvips_find_trim(first.pointer, &left, &top, &width, &height, threshold, background, colourBands) == 0
        else { throw VipsRuntime.takeError("find_trim") }
        guard width > 0, height > 0 else { return nil }
        return (Int(left), Int(top), Int(width), Int(height))
    }

    /// The `size`-point part libvips' attention strategy rates most interesting (edges, skin tones, saturated
    /// colour), where a centred crop would cut the subject off. Animations are cropped at the centre: the strategy
    /// would pick a different place in every frame.
    package func smartCropping(to size: CGSize) throws(VipsError) -> KFCrossPlatformImage {
        let (width, height) = try pixelSize(of: size)
        guard animation == nil else { return try cropping(to: size, anchorOn: CGPoint(x: 0.5, y: 0.5)) }
        let clippedWidth = min(width, pixelWidth)
        let clippedHeight = min(height, pixelHeight)
        guard clippedWidth < pixelWidth || clippedHeight < pixelHeight else { return self }
        return try mappingFrames { frame throws(VipsError) in
            try frame.apply("smartcrop") {
                cvips_smartcrop_attention($0, $1, Int32(clippedWidth), Int32(clippedHeight))
            }
        }
    }
}

extension KingfisherWrapper where Base == KFCrossPlatformImage {
    /// The image without its plain border: the colour of the `reference` pixel is cut away from every edge where
    /// no band differs from it by more than `tolerance` (0...255). Returns the image itself when it is all border
    /// or on failure. Ours (thumbor's `trim`).
    public func trimmed(reference: TrimReference = .topLeft, tolerance: Double = 0) -> KFCrossPlatformImage {
        (try? base.trimming(reference: reference, tolerance: tolerance)) ?? base
    }

    /// The most interesting `size`-point part of the image (libvips' attention strategy); a centred crop for
    /// animations. Returns the image itself on failure. Ours (thumbor's `smart`).
    public func smartCropped(to size: CGSize) -> KFCrossPlatformImage {
        (try? base.smartCropping(to: size)) ?? base
    }
}
