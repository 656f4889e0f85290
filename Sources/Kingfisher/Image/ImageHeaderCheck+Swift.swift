import Foundation

extension ImageHeaderCheck {
    /// The size a JPEG or PNG header declares, read in Swift, so a check of such bytes never starts libvips (whose
    /// start, with its modules, costs a short run like `kf prefetch --original` more than its downloads: see
    /// docs/benchmarks-history.md). Only a header that keeps every rule its libvips loader checks on the way to the
    /// same fields gives a size; anything else (another format, a header cut short, an unusual frame type, a field out
    /// of range) gives `nil`, and the loader decides.
    ///
    /// JPEG and PNG are loaders of libvips' core (`jpegload`, `pngload`), present in every packaged libvips; both
    /// formats have one frame there, so the frame limit never applies. What the loader would check beyond these
    /// fields (the tables after the frame header, the chunks after IHDR) is found by the decode, as a corrupt body.
    static func sizeReadInSwift(of data: Data) -> (width: Int, height: Int)? {
        switch data.kf.imageFormat {
        case .JPEG: return jpegSize(data)
        case .PNG: return data.withUnsafeBytes { pngSize($0) }
        default: return nil
        }
    }

    /// libjpeg's limit on a side.
    private static let jpegMaximumSide = 65_500
    /// libvips' limit on a side (`VIPS_MAX_COORD`), which its PNG loader sets.
    private static let pngMaximumSide = 10_000_000

    /// Baseline, extended or progressive Huffman frames of 8-bit samples, with 1, 3 or 4 components and a frame
    /// segment of the length they make.
    private static func jpegSize(_ data: Data) -> (width: Int, height: Int)? {
        guard let frame = JPEGFrameHeader(data), [0xC0, 0xC1, 0xC2].contains(frame.marker), frame.precision == 8,
            [1, 3, 4].contains(frame.components), frame.hasConsistentLength,
            frame.width <= jpegMaximumSide, frame.height <= jpegMaximumSide
        else { return nil }
        return (frame.width, frame.height)
    }

    /// The signature, then IHDR first: 13 bytes, both sides within libvips' limit, a bit depth the colour type
    /// allows, compression and filter method 0, interlace 0 or 1, and the chunk's CRC-32.
    private static func pngSize(_ bytes: UnsafeRawBufferPointer) -> (width: Int, height: Int)? {
        guard bytes.count >= 33 else { return nil }
        func uint32(_ at: Int) -> Int { (at..<at + 4).reduce(0) { $0 << 8 | Int(bytes[$1]) } }
        let (depth, colour) = (bytes[24], bytes[25])
        let depths: [UInt8: [UInt8]] = [0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]]
        guard uint32(8) == 13, bytes[12..<16].elementsEqual("IHDR".utf8),
            depths[colour]?.contains(depth) == true, bytes[26] == 0, bytes[27] == 0, bytes[28] <= 1,
            crc32(UnsafeRawBufferPointer(rebasing: bytes[12..<29])) == uint32(29)
        else { return nil }
        let (width, height) = (uint32(16), uint32(20))
        guard (1...pngMaximumSide).contains(width), (1...pngMaximumSide).contains(height) else { return nil }
        return (width, height)
    }

    /// PNG's CRC-32 (ISO 3309, reflected polynomial `EDB88320`), bit by bit: it covers 17 bytes here.
    private static func crc32(_ bytes: UnsafeRawBufferPointer) -> Int {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return Int(crc ^ 0xFFFF_FFFF)
    }
}
