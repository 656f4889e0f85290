import CVips
import Foundation

/// What an image server paints around an image to bring it to the size asked for: the image's mean colour, or a
/// blurred, stretched copy of the image itself.
extension KFCrossPlatformImage {
    /// The mean red, green and blue of the (first frame's) 8-bit sRGB pixels, each rounded down; transparent
    /// pixels count as their colour values.
    package func meanColour() throws(VipsError) -> (red: Int, green: Int, blue: Int) {
        try VipsRuntime.start()
        guard !isEmptyImage else { throw Self.emptyImageError }
        let first = animation == nil ? storage : try storage.frame(0)
        let pixels = try first.srgb8()
        let colour = pixels.hasAlpha ? try pixels.colourBands() : pixels
        let bytes = try colour.packedBytes()
        let bands = colour.bands
        var sums = [Int](repeating: 0, count: 3)
        for start in stride(from: 0, to: bytes.count - bands + 1, by: bands) {
            for channel in 0..<3 {
                sums[channel] += Int(bytes[start + min(channel, bands - 1)])
            }
        }
        let count = max(1, bytes.count / bands)
        return (sums[0] / count, sums[1] / count, sums[2] / count)
    }

    /// The image with its top-left corner at `left`, `top` on a `width` x `height` canvas made of the image itself,
    /// blurred (a Gaussian of standard deviation `sigma`, cut off at `radius` pixels, alpha blurred too) and
    /// stretched to the canvas; every frame on its own copy. With `mergingTransparency`, the image is composited
    /// over the canvas; otherwise its pixels replace the canvas's, transparent ones too.
    package func placedOnBlurredCopy(
        width: Int, height: Int, left: Int, top: Int, sigma: Double, radius: Int, mergingTransparency: Bool
    ) throws(VipsError) -> KFCrossPlatformImage {
        let canvasWidth = max(width, pixelWidth)
        let canvasHeight = max(height, pixelHeight)
        let x = min(max(left, 0), canvasWidth - pixelWidth)
        let y = min(max(top, 0), canvasHeight - pixelHeight)
        let kernel = Self.gaussianKernel(sigma: sigma, radius: radius)
        let sum = kernel.reduce(0, +)
        return try mappingFrames { frame throws(VipsError) in
            let image = try frame.srgb8()
            let background = try image.apply("conv") {
                cvips_convolve($0, $1, kernel, Int32(kernel.count), 1, sum)
            }.apply("conv") {
                cvips_convolve($0, $1, kernel, 1, Int32(kernel.count), sum)
            }.apply("cast") { cvips_cast_uchar($0, $1) }.resized(width: canvasWidth, height: canvasHeight)
            let placed =
                mergingTransparency && image.hasAlpha
                ? try background.cropped(x: x, y: y, width: image.width, height: image.height)
                    .composited(with: image, mode: VIPS_BLEND_MODE_OVER)
                : image
            let base = placed.hasAlpha ? try background.withAlpha() : background
            return try base.apply("insert") { cvips_insert($0, placed.pointer, $1, Int32(x), Int32(y)) }
        }
    }

    /// A one-dimensional Gaussian, `2 × radius + 1` taps of `exp(−d² / 2σ²)`.
    private static func gaussianKernel(sigma: Double, radius: Int) -> [Double] {
        let twoSigmaSquared = 2 * sigma * sigma
        return (-radius...radius).map { offset in exp(-Double(offset * offset) / twoSigmaSquared) }
    }
}
