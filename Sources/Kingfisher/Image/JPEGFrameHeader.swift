import Foundation

/// What a JPEG's start-of-frame segment declares, read without libvips: enough to tell how much memory its decode
/// needs before starting it.
struct JPEGFrameHeader: Equatable {
    let width: Int
    let height: Int
    let components: Int
    /// Progressive (SOF2, SOF6, SOF10, SOF14): libjpeg keeps every coefficient of the whole image until the last
    /// scan, two bytes each, even when it decodes at a reduced size — 44 to 88 MB for 5120 x 2880.
    let isProgressive: Bool
    /// The start-of-frame marker's second byte (`C0` baseline, `C1` extended, `C2` progressive...).
    let marker: UInt8
    /// Bits per sample.
    let precision: Int
    /// Whether the segment's length is the one its component count makes (8 + 3 per component).
    let hasConsistentLength: Bool

    /// Walks the segments from SOI to the first SOF, in place (this runs before every pool decode: no copy);
    /// `nil` for anything else, a header cut short, or a marker no segment before the frame may have (a scan,
    /// the end of the image, a restart).
    init?(_ data: Data) {
        guard
            let header = data.withUnsafeBytes({ buffer -> JPEGFrameHeader? in
                JPEGFrameHeader(buffer.bindMemory(to: UInt8.self))
            })
        else { return nil }
        self = header
    }

    private init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        func uint16(_ at: Int) -> Int? {
            at + 1 < bytes.count ? Int(bytes[at]) << 8 | Int(bytes[at + 1]) : nil
        }
        var index = 2
        while index + 3 < bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            if marker == 0xFF {  // fill byte
                index += 1
                continue
            }
            // SOI, EOI, SOS, RSTn and TEM cannot come before the frame header.
            if (0xD0...0xDA).contains(marker) || marker == 0x01 { return nil }
            guard let length = uint16(index + 2), length >= 2 else { return nil }
            // SOF0...SOF15, except DHT (C4), JPG (C8) and DAC (CC).
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard let height = uint16(index + 5), let width = uint16(index + 7), index + 9 < bytes.count,
                    width > 0, height > 0
                else { return nil }
                self.width = width
                self.height = height
                components = Int(bytes[index + 9])
                isProgressive = [0xC2, 0xC6, 0xCA, 0xCE].contains(marker)
                self.marker = marker
                precision = Int(bytes[index + 4])
                hasConsistentLength = length == 8 + 3 * components
                return
            }
            index += 2 + length
        }
        return nil
    }
}
