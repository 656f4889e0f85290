import Foundation

/// The pixel size written in an image file's header, read without decoding (and without starting libvips): for
/// the files kf itself wrote to its cache (PNG, JPEG, GIF, WebP, as our encoders write them: no orientation tag).
enum HeaderSize {
    static func of(_ data: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](data.prefix(64 * 1024))
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return png(bytes) }
        if bytes.starts(with: [0xFF, 0xD8]) { return jpeg(bytes) }
        if bytes.starts(with: Array("GIF8".utf8)) { return gif(bytes) }
        if bytes.count >= 12, Array(bytes[0..<4]) == Array("RIFF".utf8), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            return webp(bytes)
        }
        return nil
    }

    private static func bigEndian(_ bytes: [UInt8], _ at: Int, _ count: Int) -> Int? {
        guard at >= 0, at + count <= bytes.count else { return nil }
        return bytes[at..<at + count].reduce(0) { $0 << 8 | Int($1) }
    }

    private static func littleEndian(_ bytes: [UInt8], _ at: Int, _ count: Int) -> Int? {
        guard at >= 0, at + count <= bytes.count else { return nil }
        return bytes[at..<at + count].reversed().reduce(0) { $0 << 8 | Int($1) }
    }

    /// IHDR is the first chunk: width and height at bytes 16 and 20.
    private static func png(_ bytes: [UInt8]) -> (Int, Int)? {
        guard let width = bigEndian(bytes, 16, 4), let height = bigEndian(bytes, 20, 4) else { return nil }
        return (width, height)
    }

    /// Walks the markers to the first start-of-frame (SOF0...SOF15 except DHT, JPG and DAC).
    private static func jpeg(_ bytes: [UInt8]) -> (Int, Int)? {
        var index = 2
        while index + 4 <= bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            if marker == 0xFF {
                index += 1
                continue
            }
            guard let length = bigEndian(bytes, index + 2, 2) else { return nil }
            if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard let height = bigEndian(bytes, index + 5, 2), let width = bigEndian(bytes, index + 7, 2) else {
                    return nil
                }
                return (width, height)
            }
            index += 2 + length
        }
        return nil
    }

    /// The logical screen size follows the signature.
    private static func gif(_ bytes: [UInt8]) -> (Int, Int)? {
        guard let width = littleEndian(bytes, 6, 2), let height = littleEndian(bytes, 8, 2) else { return nil }
        return (width, height)
    }

    /// VP8X (extended), VP8L (lossless) or VP8 (lossy) — each keeps the size in its own place.
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
