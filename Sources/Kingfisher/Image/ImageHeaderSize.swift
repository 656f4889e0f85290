public import Foundation

/// The pixel size an image file's header declares, read without decoding and without libvips.
package enum ImageHeaderSize {
    /// A size only when both sides are at least 1: a header declaring 0 describes no image.
    package static func of(_ data: Data) -> (width: Int, height: Int)? {
        guard let size = declared(data), size.width >= 1, size.height >= 1 else { return nil }
        return size
    }

    private static func declared(_ data: Data) -> (width: Int, height: Int)? {
        switch data.kf.imageFormat {
        case .JPEG: return JPEGFrameHeader(data).map { ($0.width, $0.height) }
        case .BMP: return BMPHeader(Array(data.prefix(64))).map { ($0.width, $0.height) }
        case .PNG: return png(Array(data.prefix(24)))
        case .GIF: return gif(Array(data.prefix(10)))
        case .WebP: return webp(Array(data.prefix(30)))
        default: return nil
        }
    }

    private static func bigEndian(_ bytes: [UInt8], _ at: Int, _ count: Int) -> Int? {
        guard at + count <= bytes.count else { return nil }
        return bytes[at..<at + count].reduce(0) { $0 << 8 | Int($1) }
    }

    private static func littleEndian(_ bytes: [UInt8], _ at: Int, _ count: Int) -> Int? {
        guard at + count <= bytes.count else { return nil }
        return bytes[at..<at + count].reversed().reduce(0) { $0 << 8 | Int($1) }
    }

    /// IHDR must be the first chunk: width and height at bytes 16 and 20, each at most 2³¹ − 1 (PNG's rule, so
    /// their product fits in an `Int`).
    private static func png(_ bytes: [UInt8]) -> (Int, Int)? {
        guard bytes.count >= 24, Array(bytes[12..<16]) == Array("IHDR".utf8),
            let width = bigEndian(bytes, 16, 4), let height = bigEndian(bytes, 20, 4),
            width <= Int(Int32.max), height <= Int(Int32.max)
        else { return nil }
        return (width, height)
    }

    /// The logical screen size follows the signature.
    private static func gif(_ bytes: [UInt8]) -> (Int, Int)? {
        guard let width = littleEndian(bytes, 6, 2), let height = littleEndian(bytes, 8, 2) else { return nil }
        return (width, height)
    }

    /// VP8X (extended), VP8L (lossless) or VP8 (lossy): each keeps the size in its own place.
    private static func webp(_ bytes: [UInt8]) -> (Int, Int)? {
        guard bytes.count >= 30 else { return nil }
        switch String(decoding: bytes[12..<16], as: UTF8.self) {
        case "VP8X":
            guard let width = littleEndian(bytes, 24, 3), let height = littleEndian(bytes, 27, 3) else { return nil }
            return (width + 1, height + 1)
        case "VP8L":
            guard let bits = littleEndian(bytes, 21, 4) else { return nil }
            return ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
        case "VP8 ":
            guard let width = littleEndian(bytes, 26, 2), let height = littleEndian(bytes, 28, 2) else { return nil }
            return (width & 0x3FFF, height & 0x3FFF)
        default:
            return nil
        }
    }
}

extension KingfisherWrapper where Base == Data {
    /// Ours: the width and height in pixels the header declares (a JPEG's frame, before EXIF orientation; an
    /// animation's canvas), read without decoding; `nil` for a format it cannot read there (HEIF, TIFF, SVG), a
    /// header cut short, or one that breaks its format's rules (a side of 0, a PNG without IHDR first or over
    /// 2³¹ − 1). For PNG, JPEG, GIF, WebP and BMP; `width * height` never overflows.
    public var headerPixelSize: (width: Int, height: Int)? {
        ImageHeaderSize.of(base)
    }
}
