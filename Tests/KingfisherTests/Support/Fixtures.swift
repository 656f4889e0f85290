import CVips
import Foundation
import Kingfisher

/// Test images made on the spot, with our public API where it can, and with libvips directly for files our
/// encoder deliberately never writes (CMYK, 16-bit, EXIF orientation, grey, palette).
enum Fixtures {
    /// Debian's wallpaper photos (the benchmarks' corpus; plasma-workspace-wallpapers), where installed.
    static let wallpapers: [URL] = {
        let root = URL(fileURLWithPath: "/usr/share/wallpapers")
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.allObjects ?? []
        return files.compactMap { $0 as? URL }.filter { $0.pathExtension == "jpg" }
    }()

    /// RGBA8 pixels of a smooth gradient: red grows to the right, green downwards, blue fixed, alpha as given.
    static func gradientPixels(width: Int, height: Int, alpha: UInt8 = 255) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                pixels[i] = UInt8(x * 255 / max(1, width - 1))
                pixels[i + 1] = UInt8(y * 255 / max(1, height - 1))
                pixels[i + 2] = 128
                pixels[i + 3] = alpha
            }
        }
        return pixels
    }

    static func gradient(width: Int, height: Int, alpha: UInt8 = 255, scale: CGFloat = 1) -> KFCrossPlatformImage {
        try! KFCrossPlatformImage(
            rgbaPixels: gradientPixels(width: width, height: height, alpha: alpha), width: width, height: height,
            scale: scale)
    }

    static func solid(_ rgba: [UInt8], width: Int, height: Int) -> KFCrossPlatformImage {
        let pixels = Array((0..<width * height).map { _ in rgba }.joined())
        return try! KFCrossPlatformImage(rgbaPixels: pixels, width: width, height: height)
    }

    static func png(width: Int = 64, height: Int = 48, alpha: UInt8 = 255) -> Data {
        try! gradient(width: width, height: height, alpha: alpha).kf.encoded(as: .PNG)
    }

    static func jpeg(width: Int = 64, height: Int = 48, quality: CGFloat = 0.9) -> Data {
        try! gradient(width: width, height: height).kf.encoded(as: .JPEG, compressionQuality: quality)
    }

    /// An animated image whose frames are solid colours, one per entry of `colors`.
    static func animation(
        colors: [[UInt8]], durations: [TimeInterval], width: Int = 16, height: Int = 12, loopCount: Int = 0
    )
        -> KFCrossPlatformImage
    {
        let frames = colors.map { solid($0, width: width, height: height) }
        return try! KFCrossPlatformImage(frames: frames, frameDurations: durations, loopCount: loopCount)
    }

    // MARK: - Files our encoder does not write

    /// A CMYK JPEG (no embedded profile) of one colour.
    static func cmykJPEG(cmyk: [UInt8], width: Int = 32, height: Int = 32) -> Data {
        let pixels = Array((0..<width * height).map { _ in cmyk }.joined())
        let image = raw(pixels, width: width, height: height, bands: 4, format: VIPS_FORMAT_UCHAR)
        let tagged = apply(image) { cvips_copy_as($0, $1, Int32(VIPS_INTERPRETATION_CMYK.rawValue)) }
        defer { cvips_unref(tagged) }
        return save(tagged) { cvips_jpeg_save($0, $1, $2, 95, 0, 1) }
    }

    /// A 16-bit RGB PNG of one colour given as 16-bit components.
    static func png16(rgb: [UInt16], width: Int = 16, height: Int = 16) -> Data {
        let samples = Array((0..<width * height).map { _ in rgb }.joined())
        let pixels = samples.withUnsafeBytes { Array($0) }
        let image = raw(pixels, width: width, height: height, bands: 3, format: VIPS_FORMAT_USHORT)
        let tagged = apply(image) { cvips_copy_as($0, $1, Int32(VIPS_INTERPRETATION_RGB16.rawValue)) }
        defer { cvips_unref(tagged) }
        return save(tagged) { cvips_png_save($0, $1, $2, 6, 0, 1) }
    }

    /// A one-band grey PNG whose value grows to the right.
    static func greyPNG(width: Int = 32, height: Int = 8) -> Data {
        let pixels = (0..<width * height).map { UInt8(($0 % width) * 255 / (width - 1)) }
        let image = raw(pixels, width: width, height: height, bands: 1, format: VIPS_FORMAT_UCHAR)
        let tagged = apply(image) { cvips_copy_as($0, $1, Int32(VIPS_INTERPRETATION_B_W.rawValue)) }
        defer { cvips_unref(tagged) }
        return save(tagged) { cvips_png_save($0, $1, $2, 6, 0, 1) }
    }

    /// An 8-bit palette PNG of the gradient.
    static func palettePNG(width: Int = 32, height: Int = 32) -> Data {
        let image = raw(
            gradientPixels(width: width, height: height), width: width, height: height, bands: 4,
            format: VIPS_FORMAT_UCHAR)
        let tagged = apply(image) { cvips_copy_as($0, $1, Int32(VIPS_INTERPRETATION_sRGB.rawValue)) }
        defer { cvips_unref(tagged) }
        return save(tagged) { cvips_png_save($0, $1, $2, 6, 1, 1) }
    }

    /// A PNG of one colour with libvips' sRGB profile embedded (an identity transform on decode).
    static func srgbProfilePNG(rgb: [UInt8], width: Int = 8, height: Int = 8) -> Data {
        let pixels = Array((0..<width * height).map { _ in rgb }.joined())
        let image = raw(pixels, width: width, height: height, bands: 3, format: VIPS_FORMAT_UCHAR)
        let tagged = apply(image) { cvips_copy_as($0, $1, Int32(VIPS_INTERPRETATION_sRGB.rawValue)) }
        let profiled = apply(tagged) { cvips_icc_transform($0, $1, "srgb") }
        defer { cvips_unref(profiled) }
        return save(profiled) { cvips_png_save($0, $1, $2, 6, 0, 0) }
    }

    /// The ICC profile embedded in PNG `data`, as libvips reads it.
    static func embeddedProfile(of data: Data) -> [UInt8]? {
        data.withUnsafeBytes { bytes -> [UInt8]? in
            guard let image = cvips_load_named("pngload_buffer", bytes.baseAddress, bytes.count, 0, 1, 0, 0) else {
                return nil
            }
            defer { cvips_unref(image) }
            var blob: UnsafeRawPointer?
            var length = 0
            guard cvips_get_blob(image, "icc-profile-data", &blob, &length) == 0, let blob else { return nil }
            return Array(UnsafeRawBufferPointer(start: blob, count: length))
        }
    }

    /// A PNG of one sRGB colour converted to Display P3, with the P3 profile embedded. Also returns the stored
    /// (P3) pixel values, which differ from the sRGB ones for saturated colours.
    static func displayP3PNG(srgb: [UInt8], width: Int = 8, height: Int = 8) -> (data: Data, storedRGB: [UInt8]) {
        let pixels = Array((0..<width * height).map { _ in srgb }.joined())
        let image = raw(pixels, width: width, height: height, bands: 3, format: VIPS_FORMAT_UCHAR)
        let tagged = apply(image) { cvips_copy_as($0, $1, Int32(VIPS_INTERPRETATION_sRGB.rawValue)) }
        let p3 = apply(tagged) { cvips_icc_transform($0, $1, "p3") }
        defer { cvips_unref(p3) }
        var size = 0
        let memory = cvips_write_to_memory(p3, &size)!
        defer { cvips_free(memory) }
        let stored = Array(UnsafeRawBufferPointer(start: memory, count: 3))
        return (save(p3) { cvips_png_save($0, $1, $2, 6, 0, 0) }, stored)
    }

    /// A JPEG of `width` x `height` stored pixels whose EXIF says to display it with `orientation`.
    /// The top-left stored pixel is red, everything else blue.
    static func orientedJPEG(orientation: Int, width: Int = 40, height: Int = 20) -> Data {
        var pixels = Array((0..<width * height).map { _ in [UInt8(0), 0, 255] }.joined())
        for y in 0..<4 {
            for x in 0..<4 {
                pixels[(y * width + x) * 3] = 255
                pixels[(y * width + x) * 3 + 2] = 0
            }
        }
        let image = raw(pixels, width: width, height: height, bands: 3, format: VIPS_FORMAT_UCHAR)
        let tagged = apply(image) { cvips_copy_as($0, $1, Int32(VIPS_INTERPRETATION_sRGB.rawValue)) }
        defer { cvips_unref(tagged) }
        let owned = cvips_compute_in_memory(tagged, 1 << 20)!
        defer { cvips_unref(owned) }
        cvips_set_int(owned, "orientation", Int32(orientation))
        return save(owned) { cvips_jpeg_save($0, $1, $2, 95, 0, 0) }
    }

    /// A progressive (interlaced) JPEG of the gradient, with an EXIF segment before the frame header.
    static func progressiveJPEG(width: Int = 64, height: Int = 48) -> Data {
        let pixels = gradientPixels(width: width, height: height)
        let rgb = Array(pixels.enumerated().filter { $0.offset % 4 != 3 }.map(\.element))
        let image = raw(rgb, width: width, height: height, bands: 3, format: VIPS_FORMAT_UCHAR)
        let tagged = apply(image) { cvips_copy_as($0, $1, Int32(VIPS_INTERPRETATION_sRGB.rawValue)) }
        defer { cvips_unref(tagged) }
        let owned = cvips_compute_in_memory(tagged, 1 << 20)!
        defer { cvips_unref(owned) }
        cvips_set_int(owned, "orientation", 1)
        return save(owned) { cvips_jpeg_save($0, $1, $2, 90, 1, 0) }
    }

    /// A JPEG of busy texture (much of it in AC coefficients, unlike the gradient) in the given layout: `bands` 1
    /// for grey or 3 for colour, chroma subsampled (4:2:0) or not (4:4:4), restart markers every `restartInterval`
    /// MCUs (0: none). No metadata.
    static func texturedJPEG(
        width: Int, height: Int, bands: Int = 3, progressive: Bool = true, subsample: Bool = true,
        restartInterval: Int = 0
    ) -> Data {
        var bytes = [UInt8](repeating: 0, count: width * height * bands)
        for y in 0..<height {
            for x in 0..<width {
                for band in 0..<bands {
                    // Stripes, a slow gradient and a hashed speckle, different in each band.
                    let stripes = (x / 3 + y / 5 + band) % 2 == 0 ? 60 : 0
                    let speckle = ((x &* 73_856_093) ^ (y &* 19_349_663) ^ (band &* 83_492_791)) & 0x7F
                    bytes[(y * width + x) * bands + band] = UInt8((x + y) * 64 / (width + height) + stripes + speckle)
                }
            }
        }
        let image = raw(bytes, width: width, height: height, bands: bands, format: VIPS_FORMAT_UCHAR)
        let space = bands == 1 ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB
        let tagged = apply(image) { cvips_copy_as($0, $1, Int32(space.rawValue)) }
        defer { cvips_unref(tagged) }
        return save(tagged) {
            cvips_jpeg_save_layout(
                $0, $1, $2, 85, progressive ? 1 : 0, subsample ? 1 : 0, Int32(restartInterval))
        }
    }

    /// A lossy WebP of `width` x `height` opaque pixels: a simple `VP8 ` file (no alpha, no animation).
    static func lossyWebP(width: Int, height: Int) -> Data {
        let bytes = (0..<width * height * 3).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let image = raw(bytes, width: width, height: height, bands: 3, format: VIPS_FORMAT_UCHAR)
        let tagged = apply(image) { cvips_copy_as($0, $1, Int32(VIPS_INTERPRETATION_sRGB.rawValue)) }
        defer { cvips_unref(tagged) }
        return save(tagged) { cvips_webp_save($0, $1, $2, 80, 0) }
    }

    /// A valid PNG signature and IHDR declaring `width` x `height`, with one tiny IDAT: a decompression bomb's header.
    static func pngHeaderOnly(width: UInt32, height: UInt32) -> Data {
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            return bigEndian(UInt32(body.count)) + typed + bigEndian(crc32(typed))
        }
        let ihdr = bigEndian(width) + bigEndian(height) + [8, 6, 0, 0, 0]
        let idat: [UInt8] = [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]
        let bytes =
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr) + chunk("IDAT", idat)
            + chunk("IEND", [])
        return Data(bytes)
    }

    /// A BMP file header declaring `width` x `height` 24-bit pixels, followed by only `pixelBytes` bytes.
    static func bmp(width: Int32, height: Int32, pixelBytes: Int) -> Data {
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        var bytes: [UInt8] = Array("BM".utf8) + le32(UInt32(54 + pixelBytes)) + le32(0) + le32(54)
        bytes += le32(40) + le32(UInt32(bitPattern: width)) + le32(UInt32(bitPattern: height)) + le16(1) + le16(24)
        bytes += le32(0) + le32(UInt32(pixelBytes)) + le32(2835) + le32(2835) + le32(0) + le32(0)
        bytes += (0..<pixelBytes).map { UInt8(truncatingIfNeeded: $0 * 7) }
        return Data(bytes)
    }

    // MARK: - libvips plumbing

    private static func raw(_ bytes: [UInt8], width: Int, height: Int, bands: Int, format: VipsBandFormat)
        -> UnsafeMutablePointer<VipsImage>
    {
        ImageEngine.startLibvips()  // before calling libvips directly
        return bytes.withUnsafeBytes {
            cvips_new_from_memory_copy(
                $0.baseAddress, $0.count, Int32(width), Int32(height), Int32(bands), Int32(format.rawValue))!
        }
    }

    private static func apply(
        _ image: UnsafeMutablePointer<VipsImage>,
        _ body: (UnsafeMutablePointer<VipsImage>, UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>) -> Int32
    ) -> UnsafeMutablePointer<VipsImage> {
        defer { cvips_unref(image) }
        var out: UnsafeMutablePointer<VipsImage>?
        precondition(body(image, &out) == 0, "libvips fixture step failed")
        return out!
    }

    private static func save(
        _ image: UnsafeMutablePointer<VipsImage>,
        _ body: (
            UnsafeMutablePointer<VipsImage>, UnsafeMutablePointer<UnsafeMutableRawPointer?>, UnsafeMutablePointer<Int>
        ) -> Int32
    ) -> Data {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        precondition(body(image, &buffer, &length) == 0, "libvips fixture save failed")
        defer { cvips_free(buffer) }
        return Data(bytes: buffer!, count: length)
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}

extension KFCrossPlatformImage {
    /// The first frame's pixels as RGB8, row-major (alpha dropped).
    func rgbPixels() -> [UInt8] {
        kf.rgbaPixels().enumerated().filter { $0.offset % 4 != 3 }.map(\.element)
    }

    /// RGBA of the pixel at (x, y) of the first frame.
    func pixel(_ x: Int, _ y: Int) -> [UInt8] {
        let pixels = kf.rgbaPixels()
        let i = (y * pixelWidth + x) * 4
        return Array(pixels[i..<i + 4])
    }
}

/// Resident set size of this process in bytes, from /proc.
func residentMemory() -> Int {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
        let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
    else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}
