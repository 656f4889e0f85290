import Foundation

/// Whether image data ends the way its format ends: the check for cache files stored without a checksum.
///
/// It reads a few bytes at the end (a walk over top-level boxes for HEIF/AVIF, a length for WebP), never the
/// whole file. It catches a file cut short or with its tail lost; garbage in the middle, or after a valid end, is
/// caught only by the checksum (see ``CacheFileIntegrity``) or by decoding. Formats without a reliable end (TIFF,
/// BMP, SVG) and data of no known format count as complete.
enum ImageDataEnd {
    /// How far from the end a JPEG's EOI or a PNG's IEND may be (encoders and servers sometimes pad).
    static let trailingSlack = 64

    static func isComplete(_ data: Data) -> Bool {
        switch data.kf.imageFormat {
        case .JPEG: tailContains([0xFF, 0xD9], in: data)
        // IEND's length (0), type and fixed CRC.
        case .PNG: tailContains([0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82], in: data)
        case .GIF: data.last == 0x3B
        case .WebP: webpLengthMatches(data)
        case .HEIF, .AVIF: boxesFill(data)
        case .unknown, .TIFF, .BMP, .SVG: true
        }
    }

    /// Whether `pattern` occurs within the last ``trailingSlack`` bytes.
    private static func tailContains(_ pattern: [UInt8], in data: Data) -> Bool {
        let tail = Array(data.suffix(trailingSlack + pattern.count))
        guard tail.count >= pattern.count else { return false }
        for start in stride(from: tail.count - pattern.count, through: 0, by: -1)
        where tail[start..<start + pattern.count].elementsEqual(pattern) {
            return true
        }
        return false
    }

    /// RIFF declares the length of what follows its first 8 bytes (padded to even).
    private static func webpLengthMatches(_ data: Data) -> Bool {
        guard data.count >= 12 else { return false }
        let bytes = Array(data.prefix(8))
        let declared = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
        let expected = 8 + declared + (declared & 1)
        return data.count == expected || data.count == 8 + declared
    }

    /// ISO base media files are a sequence of boxes whose sizes must add up to the file's length exactly.
    private static func boxesFill(_ data: Data) -> Bool {
        let count = data.count
        var offset = 0
        var boxes = 0
        while offset < count {
            guard count - offset >= 8, boxes < 10_000 else { return false }
            let start = data.startIndex + offset
            var size = data[start..<start + 4].reduce(0) { $0 << 8 | Int($1) }
            if size == 1 {
                guard count - offset >= 16 else { return false }
                let large = data[start + 8..<start + 16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                guard large <= UInt64(count) else { return false }
                size = Int(large)
                guard size >= 16 else { return false }
            } else if size == 0 {
                return true  // the last box runs to the end of the file
            }
            guard size >= 8, size <= count - offset else { return false }
            offset += size
            boxes += 1
        }
        return true
    }
}
