import CVips
public import Foundation

extension KFCrossPlatformImage {
    /// Gaussian blur with standard deviation `max(radius, 2)` pixels (Kingfisher's box-blur approximation
    /// uses the same floor), with alpha premultiplied so transparent areas don't darken edges.
    func blurring(radius: CGFloat) throws(VipsError) -> KFCrossPlatformImage {
        guard radius.isFinite, radius >= 0 else {
            throw VipsError(operation: "gaussblur", message: "invalid blur radius \(radius)")
        }
        let sigma = Double(max(radius, 2))
        // Small frames blur faster in floating point than through the vector code libvips compiles per blur;
        // every frame of an animation has the same size and shares one mask.
        let inFloat: Int32 = pixelWidth * pixelHeight < 65_536 ? 1 : 0
        var maskPointer: UnsafeMutablePointer<VipsImage>?
        try VipsRuntime.start()
        guard cvips_gaussmat(&maskPointer, sigma, inFloat) == 0, let maskPointer else {
            throw VipsRuntime.takeError("gaussmat")
        }
        let mask = VipsImageHandle(owning: maskPointer)
        let blur: (VipsImageHandle) throws(VipsError) -> VipsImageHandle = { frame throws(VipsError) in
            try frame.apply("convsep") { cvips_convsep($0, $1, mask.pointer, inFloat) }
        }
        return try mappingFrames { frame throws(VipsError) in
            guard frame.hasAlpha else { return try blur(frame).srgb8() }
            return try blur(frame.apply("premultiply") { cvips_premultiply($0, $1) })
                .apply("unpremultiply") { cvips_unpremultiply($0, $1) }
                .srgb8()
        }
    }

    /// Mixes `color` into the colour bands: `image × fraction + color × (1 − fraction)`; alpha is kept.
    func overlaying(with color: KFCrossPlatformColor, fraction: CGFloat) throws(VipsError) -> KFCrossPlatformImage {
        guard fraction.isFinite else { throw VipsError(operation: "overlay", message: "invalid fraction \(fraction)") }
        let keep = Double(min(max(fraction, 0), 1))
        let rgb = color.rgba8.prefix(3).map { Double($0) * (1 - keep) }
        return try mappingFrames { frame throws(VipsError) in
            let alpha = frame.hasAlpha
            return try frame.linear(
                Array(repeating: keep, count: 3) + (alpha ? [1] : []),
                rgb + (alpha ? [0] : []))
        }
    }

    /// `color` drawn over the image with source-over compositing, as Core Image's tint does: an opaque colour
    /// covers the image, a translucent one mixes by its alpha.
    func tinting(with color: KFCrossPlatformColor) throws(VipsError) -> KFCrossPlatformImage {
        try mappingFrames { frame throws(VipsError) in
            let tint = try VipsImageHandle.solid(width: frame.width, height: frame.height, color: color)
            let result = try frame.composited(with: tint, mode: VIPS_BLEND_MODE_OVER)
            return frame.hasAlpha || color.alpha < 1 ? result : try result.colourBands()
        }
    }

    /// Core Image's `CIColorControls` followed by `CIExposureAdjust`, computed like Core Image in linear-light
    /// sRGB on each colour (alpha untouched):
    /// - saturation: mix between the luminance grey (Rec. 709 weights 0.2125, 0.7154, 0.0721) at 0 and the colour
    ///   at 1, extrapolating above 1;
    /// - brightness: added to each channel (0 = unchanged, ±1 = full range);
    /// - contrast: `(c − 0.5) × contrast + 0.5` (1 = unchanged);
    /// - inputEV: multiplies by `2^inputEV` (0 = unchanged; +1 = one stop brighter).
    func adjusting(brightness: CGFloat, contrast: CGFloat, saturation: CGFloat, inputEV: CGFloat) throws(VipsError)
        -> KFCrossPlatformImage
    {
        guard [brightness, contrast, saturation, inputEV].allSatisfy(\.isFinite) else {
            throw VipsError(operation: "color controls", message: "non-finite parameter")
        }
        let s = Double(saturation)
        let gain = pow(2, Double(inputEV)) * Double(contrast)
        let weights = [0.2125, 0.7154, 0.0721]
        var matrix = [Double](repeating: 0, count: 9)
        for row in 0..<3 {
            for column in 0..<3 {
                matrix[row * 3 + column] = gain * ((1 - s) * weights[column] + (row == column ? s : 0))
            }
        }
        let offset = pow(2, Double(inputEV)) * (Double(contrast) * Double(brightness) + 0.5 * (1 - Double(contrast)))
        return try mappingFrames { frame throws(VipsError) in
            let linear = try frame.colourBands()
                .apply("colourspace") { cvips_colourspace($0, $1, Int32(VIPS_INTERPRETATION_scRGB.rawValue)) }
                .apply("recomb") { cvips_recomb($0, $1, matrix, 3) }
                .apply("linear") { cvips_linear($0, $1, [1, 1, 1], [offset, offset, offset], 3, 0) }
            let srgb =
                try linear
                .apply("copy") { cvips_copy_as($0, $1, Int32(VIPS_INTERPRETATION_scRGB.rawValue)) }
                .apply("colourspace") { cvips_colourspace($0, $1, Int32(VIPS_INTERPRETATION_sRGB.rawValue)) }
                .srgb8()
            return frame.hasAlpha ? try srgb.joined(with: frame.alphaBand()) : srgb
        }
    }

    /// The image drawn with `mode` at `alpha` onto `backgroundColor` (transparent when `nil`).
    func blending(mode: BlendMode, alpha: CGFloat, backgroundColor: KFCrossPlatformColor?) throws(VipsError)
        -> KFCrossPlatformImage
    {
        guard alpha.isFinite else { throw VipsError(operation: "blend", message: "invalid alpha \(alpha)") }
        let opacity = Double(min(max(alpha, 0), 1))
        let background = backgroundColor ?? .clear
        return try mappingFrames { frame throws(VipsError) in
            let base = try VipsImageHandle.solid(width: frame.width, height: frame.height, color: background)
            let source = try frame.withAlpha().linear([1, 1, 1, opacity], [0, 0, 0, 0])
            return try base.composited(with: source, mode: mode.vipsMode)
        }
    }
}

extension BlendMode {
    var vipsMode: VipsBlendMode {
        switch self {
        case .normal: VIPS_BLEND_MODE_OVER
        case .multiply: VIPS_BLEND_MODE_MULTIPLY
        case .screen: VIPS_BLEND_MODE_SCREEN
        case .overlay: VIPS_BLEND_MODE_OVERLAY
        case .darken: VIPS_BLEND_MODE_DARKEN
        case .lighten: VIPS_BLEND_MODE_LIGHTEN
        case .colorDodge: VIPS_BLEND_MODE_COLOUR_DODGE
        case .colorBurn: VIPS_BLEND_MODE_COLOUR_BURN
        case .softLight: VIPS_BLEND_MODE_SOFT_LIGHT
        case .hardLight: VIPS_BLEND_MODE_HARD_LIGHT
        case .difference: VIPS_BLEND_MODE_DIFFERENCE
        case .exclusion: VIPS_BLEND_MODE_EXCLUSION
        case .clear: VIPS_BLEND_MODE_CLEAR
        case .copy: VIPS_BLEND_MODE_SOURCE
        case .sourceIn: VIPS_BLEND_MODE_IN
        case .sourceOut: VIPS_BLEND_MODE_OUT
        case .sourceAtop: VIPS_BLEND_MODE_ATOP
        case .destinationOver: VIPS_BLEND_MODE_DEST_OVER
        case .destinationIn: VIPS_BLEND_MODE_DEST_IN
        case .destinationOut: VIPS_BLEND_MODE_DEST_OUT
        case .destinationAtop: VIPS_BLEND_MODE_DEST_ATOP
        case .xor: VIPS_BLEND_MODE_XOR
        case .plusLighter: VIPS_BLEND_MODE_ADD
        }
    }
}

extension KingfisherWrapper where Base == KFCrossPlatformImage {
    /// A Gaussian blur of `radius` pixels' standard deviation (at least 2, as Kingfisher); every frame of an
    /// animation. Returns the image itself on failure.
    public func blurred(withRadius radius: CGFloat) -> KFCrossPlatformImage {
        (try? base.blurring(radius: radius)) ?? base
    }

    /// `color` mixed in: `fraction` 0 gives solid colour, 1 leaves the image unchanged. Alpha is kept.
    public func overlaying(with color: KFCrossPlatformColor, fraction: CGFloat) -> KFCrossPlatformImage {
        (try? base.overlaying(with: color, fraction: fraction)) ?? base
    }

    /// `color` composited over the image (source-over, like Core Image's tint): its alpha sets how strong.
    public func tinted(with color: KFCrossPlatformColor) -> KFCrossPlatformImage {
        (try? base.tinting(with: color)) ?? base
    }

    /// Brightness, contrast, saturation and exposure, with Core Image's meanings (see `ColorControlsProcessor`).
    public func adjusted(brightness: CGFloat, contrast: CGFloat, saturation: CGFloat, inputEV: CGFloat)
        -> KFCrossPlatformImage
    {
        (try? base.adjusting(brightness: brightness, contrast: contrast, saturation: saturation, inputEV: inputEV))
            ?? base
    }

    /// The image drawn with a blend mode and alpha onto a background colour (transparent when `nil`).
    public func image(
        withBlendMode blendMode: BlendMode, alpha: CGFloat = 1.0, backgroundColor: KFCrossPlatformColor? = nil
    )
        -> KFCrossPlatformImage
    {
        (try? base.blending(mode: blendMode, alpha: alpha, backgroundColor: backgroundColor)) ?? base
    }
}
