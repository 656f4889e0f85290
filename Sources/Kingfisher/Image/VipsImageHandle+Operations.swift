import CVips
import Foundation

/// Building blocks for the image operations: each returns a new lazy handle; `materialised()` computes it.
extension VipsImageHandle {
    /// The image with an alpha band, opaque where it had none.
    func withAlpha() throws(VipsError) -> VipsImageHandle {
        hasAlpha ? self : try apply("bandjoin_const") { cvips_add_opaque_alpha($0, $1) }
    }

    /// The colour bands without alpha.
    func colourBands() throws(VipsError) -> VipsImageHandle {
        hasAlpha ? try apply("extract_band") { cvips_extract_bands($0, $1, 0, 3) } : self
    }

    /// The alpha band alone; only for an image with alpha.
    func alphaBand() throws(VipsError) -> VipsImageHandle {
        try apply("extract_band") { cvips_extract_bands($0, $1, Int32(bands - 1), 1) }
    }

    func joined(with other: VipsImageHandle) throws(VipsError) -> VipsImageHandle {
        try apply("bandjoin") { cvips_bandjoin2($0, other.pointer, $1) }
    }

    /// `self * a + b` per band, rounded and clamped to 8 bits.
    func linear(_ a: [Double], _ b: [Double]) throws(VipsError) -> VipsImageHandle {
        precondition(a.count == b.count)
        return try apply("linear") { cvips_linear($0, $1, a, b, Int32(a.count), 1) }
    }

    /// Resamples to exactly `width` x `height` pixels with a Lanczos-3 kernel, premultiplying alpha so
    /// transparent pixels don't bleed dark fringes.
    func resized(width: Int, height: Int) throws(VipsError) -> VipsImageHandle {
        guard width != self.width || height != self.height else { return self }
        let xScale = Double(width) / Double(self.width)
        let yScale = Double(height) / Double(self.height)
        guard hasAlpha else {
            return try apply("resize") { cvips_resize($0, $1, xScale, yScale) }.srgb8()
        }
        return try apply("premultiply") { cvips_premultiply($0, $1) }
            .apply("resize") { cvips_resize($0, $1, xScale, yScale) }
            .apply("unpremultiply") { cvips_unpremultiply($0, $1) }
            .srgb8()
    }

    func cropped(x: Int, y: Int, width: Int, height: Int) throws(VipsError) -> VipsImageHandle {
        try apply("extract_area") { cvips_extract_area($0, $1, Int32(x), Int32(y), Int32(width), Int32(height)) }
    }

    /// `overlay` drawn on `self` with a blend mode; both get alpha first. The result is 8-bit sRGBA.
    func composited(with overlay: VipsImageHandle, mode: VipsBlendMode) throws(VipsError) -> VipsImageHandle {
        let base = try withAlpha()
        let top = try overlay.withAlpha()
        return try base.apply("composite") { cvips_composite2($0, top.pointer, $1, Int32(mode.rawValue)) }.srgb8()
    }

    /// A `width` x `height` image of one colour, with alpha.
    static func solid(width: Int, height: Int, color: KFCrossPlatformColor) throws(VipsError) -> VipsImageHandle {
        let c = color.rgba8.map(Double.init)
        var output: UnsafeMutablePointer<VipsImage>?
        guard cvips_solid(&output, Int32(width), Int32(height), c[0], c[1], c[2], c[3]) == 0, let output else {
            throw VipsRuntime.takeError("solid")
        }
        return VipsImageHandle(owning: output)
    }

    /// Renders SVG markup (anti-aliased, by librsvg) into memory.
    static func rendering(svg: String) throws(VipsError) -> VipsImageHandle {
        let bytes = Array(svg.utf8)
        let loaded = bytes.withUnsafeBytes { buffer -> Result<VipsImageHandle, VipsError> in
            guard
                let image = cvips_load_named(
                    "svgload_buffer", buffer.baseAddress, buffer.count, 0, 1, Int32(VIPS_FAIL_ON_ERROR.rawValue), 0)
            else {
                return .failure(VipsRuntime.takeError("svgload"))
            }
            // Computed while the markup is still alive: libvips reads the buffer lazily.
            return Result { () throws(VipsError) in try VipsImageHandle(owning: image).materialised() }
        }
        return try loaded.get()
    }
}

/// Packed 8-bit pixels in and out of libvips: the image's bands interleaved, row by row from the top left.
extension VipsImageHandle {
    /// Every pixel computed into one packed buffer (an 8-bit image: one byte a band).
    func packedBytes() throws(VipsError) -> [UInt8] {
        var size = 0
        guard let memory = cvips_write_to_memory(pointer, &size) else {
            throw VipsRuntime.takeError("write_to_memory")
        }
        defer { cvips_free(memory) }
        return Array(UnsafeRawBufferPointer(start: memory, count: size))
    }

    /// An 8-bit sRGB image copied from `bytes`: `width` x `height` pixels of `bands` interleaved bands.
    static func packed(_ bytes: [UInt8], width: Int, height: Int, bands: Int) throws(VipsError) -> VipsImageHandle {
        let copied = bytes.withUnsafeBytes { buffer in
            cvips_new_from_memory_copy(
                buffer.baseAddress, buffer.count, Int32(width), Int32(height), Int32(bands),
                Int32(VIPS_FORMAT_UCHAR.rawValue))
        }
        guard let copied else { throw VipsRuntime.takeError("new_from_memory_copy") }
        return try VipsImageHandle(owning: copied).apply("copy") {
            cvips_copy_as($0, $1, Int32(VIPS_INTERPRETATION_sRGB.rawValue))
        }
    }
}
