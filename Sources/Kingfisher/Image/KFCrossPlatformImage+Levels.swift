import CVips
import Foundation

/// Operations on the colour values of 8-bit sRGB pixels, alpha left as it is, on every frame of an animation: the
/// building blocks of the image server's colour filters.
extension KFCrossPlatformImage {
    /// Each colour channel `c` (red, green, blue) becomes `scale[i] × c + offset[i]`, rounded and clamped to
    /// 0...255.
    package func mappingColourChannels(scale: [Double], offset: [Double]) throws(VipsError) -> KFCrossPlatformImage {
        precondition(scale.count == 3 && offset.count == 3, "one scale and one offset per colour channel")
        return try mappingFrames { frame throws(VipsError) in
            let pixels = try frame.srgb8()
            let alpha = pixels.hasAlpha
            return try pixels.linear(scale + (alpha ? [1] : []), offset + (alpha ? [0] : []))
        }
    }

    /// Each colour channel's histogram equalised on its own, the classic way: a level becomes
    /// `(cdf(level) − cdf(darkest level present)) / (pixels − cdf(darkest level present)) × 255`, truncated, so the
    /// darkest level present goes to 0 and the brightest to 255 (a flat channel is left as it is).
    package func equalisingHistogram() throws(VipsError) -> KFCrossPlatformImage {
        try mappingColourBytes { bytes, channels in Self.equalise(&bytes, channels: channels) }
    }

    /// Each colour channel's level `v` becomes `tables[channel][v]` (red, green, blue: 256 levels each).
    package func mappingColourLevels(_ tables: [[UInt8]]) throws(VipsError) -> KFCrossPlatformImage {
        precondition(tables.count == 3 && tables.allSatisfy { $0.count == 256 }, "256 levels per colour channel")
        return try mappingColourBytes { bytes, channels in
            for start in stride(from: 0, to: bytes.count - channels + 1, by: channels) {
                for channel in 0..<min(3, channels) {
                    bytes[start + channel] = tables[channel][Int(bytes[start + channel])]
                }
            }
        }
    }

    /// The saturation scaled by `factor` around each pixel's perceived brightness
    /// `p = √(0.299 r² + 0.587 g² + 0.114 b²)`: each channel becomes `p + (c − p) × factor`, truncated and
    /// clamped (0 gives grey, 1 leaves the image as it is).
    package func scalingSaturation(by factor: Double) throws(VipsError) -> KFCrossPlatformImage {
        try mappingColourBytes { bytes, channels in
            guard channels >= 3 else { return }
            for start in stride(from: 0, to: bytes.count - channels + 1, by: channels) {
                let (r, g, b) = (Double(bytes[start]), Double(bytes[start + 1]), Double(bytes[start + 2]))
                let brightness = (r * r * 0.299 + g * g * 0.587 + b * b * 0.114).squareRoot()
                for (offset, value) in [r, g, b].enumerated() {
                    let changed = Int(brightness + (value - brightness) * factor)
                    bytes[start + offset] = UInt8(min(255, max(0, changed)))
                }
            }
        }
    }

    /// The colour bands of every frame as interleaved 8-bit values, changed in place by `body` (which gets the
    /// bytes and the number of channels), alpha joined back.
    private func mappingColourBytes(
        _ body: @escaping (inout [UInt8], Int) -> Void
    ) throws(VipsError) -> KFCrossPlatformImage {
        try mappingFrames { frame throws(VipsError) in
            try Self.onColour(of: frame.srgb8()) { colour throws(VipsError) in
                var bytes = try colour.packedBytes()
                body(&bytes, colour.bands)
                return try VipsImageHandle.packed(
                    bytes, width: colour.width, height: colour.height, bands: colour.bands)
            }
        }
    }

    /// Every band (alpha too) convolved with `kernel`, `columns` wide (an odd number of odd-length rows), divided
    /// by `divisor`; edge pixels repeat outward. The sums are truncated and clamped to 0...255.
    package func convolving(kernel: [Double], columns: Int, divisor: Double) throws(VipsError) -> KFCrossPlatformImage {
        precondition(columns > 0 && kernel.count % columns == 0, "whole rows")
        return try mappingFrames { frame throws(VipsError) in
            try frame.srgb8().apply("conv") {
                cvips_convolve($0, $1, kernel, Int32(columns), Int32(kernel.count / columns), divisor)
            }.apply("cast") { cvips_cast_uchar($0, $1) }
        }
    }

    /// An unsharp mask on the colour bands: `c + amount × (c − blurred c)`, the blur's standard deviation `sigma`.
    package func sharpening(amount: Double, sigma: Double) throws(VipsError) -> KFCrossPlatformImage {
        try mappingFrames { frame throws(VipsError) in
            try Self.onColour(of: frame.srgb8()) { colour throws(VipsError) in
                let blurred = try colour.apply("gaussblur") { cvips_gaussblur($0, $1, sigma) }
                    .apply("linear") { cvips_linear($0, $1, [-amount], [0], 1, 0) }
                return try colour.apply("linear") { cvips_linear($0, $1, [1 + amount], [0], 1, 0) }
                    .apply("add") { cvips_add($0, blurred.pointer, $1) }
                    .apply("cast") { cvips_cast_uchar($0, $1) }
            }
        }
    }

    /// Equalises each of the `channels` interleaved 8-bit channels of `bytes` in place.
    private static func equalise(_ bytes: inout [UInt8], channels: Int) {
        let pixels = bytes.count / channels
        for channel in 0..<channels {
            var histogram = [Int](repeating: 0, count: 256)
            for index in stride(from: channel, to: bytes.count, by: channels) { histogram[Int(bytes[index])] += 1 }
            guard let darkest = histogram.firstIndex(where: { $0 > 0 }), histogram[darkest] < pixels else { continue }
            let floor = histogram[darkest]
            var table = [UInt8](repeating: 0, count: 256)
            var cumulative = 0
            for level in 0..<256 {
                cumulative += histogram[level]
                // Levels below the darkest present never occur; they map to 0.
                table[level] = UInt8(Double(max(0, cumulative - floor)) / Double(pixels - floor) * 255)
            }
            for index in stride(from: channel, to: bytes.count, by: channels) {
                bytes[index] = table[Int(bytes[index])]
            }
        }
    }

    /// The same amount added to the red, green and blue of each pixel: Gaussian noise of standard deviation
    /// `sigma` around 0, the same pattern for the same `seed` and size.
    package func addingNoise(sigma: Double, seed: Int32) throws(VipsError) -> KFCrossPlatformImage {
        try mappingFrames { frame throws(VipsError) in
            try Self.onColour(of: frame.srgb8()) { colour throws(VipsError) in
                var output: UnsafeMutablePointer<VipsImage>?
                guard cvips_gaussnoise(&output, Int32(colour.width), Int32(colour.height), sigma, seed) == 0,
                    let output
                else { throw VipsRuntime.takeError("gaussnoise") }
                let noise = VipsImageHandle(owning: output)
                return try colour.apply("add") { cvips_add($0, noise.pointer, $1) }.apply("cast") {
                    cvips_cast_uchar($0, $1)
                }
            }
        }
    }

    /// The image on an opaque background of `color`: alpha composited over it and dropped. An opaque image is
    /// returned as it is.
    package func flattening(onto color: KFCrossPlatformColor) throws(VipsError) -> KFCrossPlatformImage {
        guard hasAlpha else { return self }
        let rgb = color.rgba8.prefix(3).map(Double.init)
        return try mappingFrames { frame throws(VipsError) in
            let pixels = try frame.srgb8()
            guard pixels.hasAlpha else { return pixels }
            return try pixels.apply("flatten") { cvips_flatten($0, $1, rgb[0], rgb[1], rgb[2]) }
        }
    }

    /// `body` applied to the colour bands of `image`, its alpha joined back.
    private static func onColour(
        of image: VipsImageHandle, _ body: (VipsImageHandle) throws(VipsError) -> VipsImageHandle
    ) throws(VipsError) -> VipsImageHandle {
        guard image.hasAlpha else { return try body(image) }
        return try body(image.colourBands()).joined(with: image.alphaBand())
    }
}
