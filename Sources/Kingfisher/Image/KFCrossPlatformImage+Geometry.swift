public import Foundation
import CVips

extension KFCrossPlatformImage {
    /// Resamples to `size` points (size × scale pixels); every frame of an animation.
    package func resizing(to size: CGSize) throws(VipsError) -> KFCrossPlatformImage {
        let (width, height) = try pixelSize(of: size)
        guard width != pixelWidth || height != pixelHeight else { return self }
        return try mappingFrames { frame throws(VipsError) in try frame.resized(width: width, height: height) }
    }

    /// Cuts out the `size`-point rectangle at `anchor` (0...1 on each axis); a rectangle reaching past the edges
    /// is clipped to the image, as Kingfisher does.
    package func cropping(to size: CGSize, anchorOn anchor: CGPoint) throws(VipsError) -> KFCrossPlatformImage {
        let (width, height) = try pixelSize(of: size)
        let ax = anchor.x.isNaN ? 0.5 : min(max(anchor.x, 0), 1)
        let ay = anchor.y.isNaN ? 0.5 : min(max(anchor.y, 0), 1)
        let left = Int((ax * CGFloat(pixelWidth - width)).rounded())
        let top = Int((ay * CGFloat(pixelHeight - height)).rounded())
        let x0 = max(0, left)
        let y0 = max(0, top)
        let x1 = min(pixelWidth, left + width)
        let y1 = min(pixelHeight, top + height)
        guard x1 > x0, y1 > y0 else { throw VipsError(operation: "crop", message: "the crop rectangle is empty") }
        if x0 == 0, y0 == 0, x1 == pixelWidth, y1 == pixelHeight { return self }
        return try mappingFrames { frame throws(VipsError) in
            try frame.cropped(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        }
    }

    /// Fits in `size` points keeping the aspect ratio, never enlarging; every frame of an animation.
    func downsampling(toFit size: CGSize) throws(VipsError) -> KFCrossPlatformImage {
        let (width, height) = try pixelSize(of: size)
        guard width < pixelWidth || height < pixelHeight else { return self }
        let fit = Self.fitting(CGSize(width: pixelWidth, height: pixelHeight), in: CGSize(width: width, height: height))
        return try mappingFrames { frame throws(VipsError) in
            try frame.resized(width: Int(fit.width), height: Int(fit.height))
        }
    }

    /// Pixel dimensions for a size in points at this image's scale; throws on sizes that are not positive, and on
    /// a result (every frame) of more pixels than the engine's limit (``ImageEngine/maximumPixelCount``).
    func pixelSize(of size: CGSize) throws(VipsError) -> (Int, Int) {
        let width = (size.width * scale).rounded()
        let height = (size.height * scale).rounded()
        guard width.isFinite, height.isFinite, width >= 1, height >= 1, width <= 1e6, height <= 1e6 else {
            throw VipsError(operation: "resize", message: "invalid target size \(size) at scale \(scale)")
        }
        let limit = ImageEngine.Configuration.current.maximumPixelCount
        let frames = Double(max(1, animation?.frameCount ?? 1))
        guard width * height * frames <= Double(limit) else {
            let each = frames > 1 ? " per frame, \(Int(frames)) frames" : ""
            throw VipsError(
                operation: "resize",
                message: "a \(Int(width)) x \(Int(height)) result\(each) is more than the limit of \(limit) pixels "
                    + "(ImageEngine.maximumPixelCount)")
        }
        return (Int(width), Int(height))
    }

    /// The largest size with `source`'s aspect ratio inside `bounds`, in whole units (at least 1).
    static func fitting(_ source: CGSize, in bounds: CGSize) -> CGSize {
        let ratio = source.width / source.height
        let widthForHeight = (bounds.height * ratio).rounded()
        if widthForHeight <= bounds.width {
            return CGSize(width: max(1, widthForHeight), height: bounds.height)
        }
        return CGSize(width: bounds.width, height: max(1, (bounds.width / ratio).rounded()))
    }

    /// The smallest size with `source`'s aspect ratio covering `bounds`, in whole units.
    static func filling(_ source: CGSize, _ bounds: CGSize) -> CGSize {
        let ratio = source.width / source.height
        let widthForHeight = (bounds.height * ratio).rounded()
        if widthForHeight >= bounds.width {
            return CGSize(width: widthForHeight, height: bounds.height)
        }
        return CGSize(width: bounds.width, height: (bounds.width / ratio).rounded())
    }
}

extension KingfisherWrapper where Base == KFCrossPlatformImage {
    /// The same pixels (and frames) at another scale, so the size in points changes. Kingfisher's `scaled(to:)`.
    public func scaled(to scale: CGFloat) -> KFCrossPlatformImage {
        base.withScale(scale)
    }

    /// The image resized to `size` points; the image itself if the size is not positive.
    public func resize(to size: CGSize) -> KFCrossPlatformImage {
        (try? base.resizing(to: size)) ?? base
    }

    /// The image resized against `size` points: exactly (`.none`), to fit inside (`.aspectFit`) or to cover
    /// (`.aspectFill`, nothing cropped). Animated images keep every frame. Returns the image itself on failure.
    public func resize(to size: CGSize, for contentMode: ContentMode) -> KFCrossPlatformImage {
        base.resizeTarget(size, for: contentMode).map(resize(to:)) ?? base
    }

    /// The `size`-point part of the image at `anchor`: `(0, 0)` top left, `(0.5, 0.5)` centre, `(1, 1)` bottom
    /// right. A rectangle reaching past the edges is clipped. Returns the image itself on failure.
    public func crop(to size: CGSize, anchorOn anchor: CGPoint) -> KFCrossPlatformImage {
        (try? base.cropping(to: size, anchorOn: anchor)) ?? base
    }
}

extension KFCrossPlatformImage {
    /// The size in points that `resize(to:for:)` produces; `nil` for sizes that are not positive.
    func resizeTarget(_ size: CGSize, for mode: ContentMode) -> CGSize? {
        guard size.width > 0, size.height > 0, size.width.isFinite, size.height.isFinite else { return nil }
        switch mode {
        case .none: return size
        case .aspectFit: return Self.fitting(self.size, in: size)
        case .aspectFill: return Self.filling(self.size, size)
        }
    }
}

extension KFCrossPlatformImage {
    /// The `width` x `height` pixel rectangle whose top-left corner is (`x`, `y`), clipped to the image; every
    /// frame of an animation. Throws when nothing of it lies inside the image.
    package func croppingPixels(x: Int, y: Int, width: Int, height: Int) throws(VipsError) -> KFCrossPlatformImage {
        let x0 = max(0, x)
        let y0 = max(0, y)
        let x1 = min(pixelWidth, x.addingReportingOverflow(width).partialValue)
        let y1 = min(pixelHeight, y.addingReportingOverflow(height).partialValue)
        guard x1 > x0, y1 > y0 else { throw VipsError(operation: "crop", message: "the crop rectangle is empty") }
        if x0 == 0, y0 == 0, x1 == pixelWidth, y1 == pixelHeight { return self }
        return try mappingFrames { frame throws(VipsError) in
            try frame.cropped(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        }
    }

    /// The image on a `width` x `height` pixel canvas of `color` (at least the image's size), its top-left corner
    /// at `left`, `top` (kept inside the canvas); every frame. Transparent pixels of the image stay transparent.
    package func padding(toPixelWidth width: Int, height: Int, color: KFCrossPlatformColor, left: Int, top: Int)
        throws(VipsError) -> KFCrossPlatformImage
    {
        let canvasWidth = max(width, pixelWidth)
        let canvasHeight = max(height, pixelHeight)
        guard canvasWidth > pixelWidth || canvasHeight > pixelHeight else { return self }
        let x = min(max(left, 0), canvasWidth - pixelWidth)
        let y = min(max(top, 0), canvasHeight - pixelHeight)
        let rgba = color.rgba8.map(Double.init)
        let opaque = rgba[3] >= 255
        return try mappingFrames { frame throws(VipsError) in
            let colour = try frame.srgb8()
            let source = opaque ? colour : try colour.withAlpha()
            let background = source.bands >= 4 ? rgba : Array(rgba.prefix(3))
            return try source.apply("embed") {
                cvips_embed(
                    $0, $1, Int32(x), Int32(y), Int32(canvasWidth), Int32(canvasHeight), background,
                    Int32(background.count))
            }
        }
    }
}
