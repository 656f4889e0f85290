public import Foundation

extension ImageFormat {
    /// A JPEG marker, the two bytes `FF xx` that start a segment of a JPEG file.
    public enum JPEGMarker: Sendable, Hashable {
        /// Start of frame, baseline DCT (`FF C0`).
        case SOF0
        /// Start of frame, progressive DCT (`FF C2`): the file is a progressive JPEG.
        case SOF2
        /// Huffman tables (`FF C4`).
        case DHT
        /// Quantisation tables (`FF DB`).
        case DQT
        /// Restart interval (`FF DD`).
        case DRI
        /// Start of scan (`FF DA`).
        case SOS
        /// Restart marker `n`, 0...7 (`FF D0` to `FF D7`).
        case RSTn(UInt8)
        /// An application segment (`FF E0` to `FF EF`: JFIF, EXIF, ICC...).
        case APPn
        /// A comment (`FF FE`).
        case COM
        /// End of image (`FF D9`).
        case EOI

        /// The marker's bytes; for ``APPn`` the first application marker, `FF E0`.
        public var bytes: [UInt8] {
            switch self {
            case .SOF0: [0xFF, 0xC0]
            case .SOF2: [0xFF, 0xC2]
            case .DHT: [0xFF, 0xC4]
            case .DQT: [0xFF, 0xDB]
            case .DRI: [0xFF, 0xDD]
            case .SOS: [0xFF, 0xDA]
            case .RSTn(let n): [0xFF, 0xD0 &+ min(n, 7)]
            case .APPn: [0xFF, 0xE0]
            case .COM: [0xFF, 0xFE]
            case .EOI: [0xFF, 0xD9]
            }
        }

        /// Whether the second byte of a marker, `code`, is this marker.
        func matches(_ code: UInt8) -> Bool {
            switch self {
            case .RSTn(let n): n <= 7 && code == 0xD0 + n
            case .APPn: (0xE0...0xEF).contains(code)
            default: code == bytes[1]
            }
        }
    }
}

extension KingfisherWrapper where Base == Data {
    /// Whether the data is a JPEG with `marker` among its segments, for example `.SOF2` for a progressive JPEG.
    ///
    /// - Note: The segments are walked from the start of the image (lengths skipped, scan data read for restart
    ///   markers), so bytes that only look like a marker — inside an EXIF thumbnail, an ICC profile or the
    ///   compressed data — do not count; Kingfisher searches every byte pair instead and can be fooled by them.
    public func contains(jpeg marker: ImageFormat.JPEGMarker) -> Bool {
        guard imageFormat == .JPEG else { return false }
        return base.withUnsafeBytes { raw in
            JPEGSegments(raw.bindMemory(to: UInt8.self)).contains { marker.matches($0) }
        }
    }
}

/// The markers of a JPEG file in order, read from its segment structure.
struct JPEGSegments {
    let bytes: UnsafeBufferPointer<UInt8>

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Walks the markers after SOI until `found` says yes (`true`) or the data ends or breaks (`false`).
    func contains(_ found: (UInt8) -> Bool) -> Bool {
        var index = 2  // after SOI
        while index + 1 < bytes.count {
            guard bytes[index] == 0xFF else { return false }
            let code = bytes[index + 1]
            if code == 0xFF {  // fill byte
                index += 1
                continue
            }
            if found(code) { return true }
            switch code {
            case 0xD9:  // EOI
                return false
            case 0x01, 0xD0...0xD7:  // TEM, RSTn: no length
                index += 2
            default:
                guard index + 3 < bytes.count else { return false }
                let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
                guard length >= 2 else { return false }
                index += 2 + length
                if code == 0xDA {  // SOS: compressed data follows, up to the next marker that is not RSTn
                    let scan = scanData(from: index, found)
                    if scan.found { return true }
                    index = scan.end
                }
            }
        }
        return false
    }

    /// Reads the scan data at `start` up to the marker that ends it (`end`), stopping early when a restart marker in
    /// it is `found`.
    private func scanData(from start: Int, _ found: (UInt8) -> Bool) -> (found: Bool, end: Int) {
        var index = start
        while index + 1 < bytes.count {
            guard bytes[index] == 0xFF else {
                index += 1
                continue
            }
            let code = bytes[index + 1]
            switch code {
            case 0x00: index += 2  // a stuffed 0xFF data byte
            case 0xFF: index += 1  // fill
            case 0xD0...0xD7:
                if found(code) { return (true, index) }
                index += 2
            default: return (false, index)
            }
        }
        return (false, bytes.count)
    }
}
