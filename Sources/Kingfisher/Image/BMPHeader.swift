/// The dimensions a BMP file declares, read without libvips.
///
/// libvips 8.14 loads BMP through ImageMagick, which allocates from the declared size without a limit of
/// its own, so the pixel limit must be checked on these fields before libvips sees the bytes.
struct BMPHeader: Equatable {
    let width: Int
    let height: Int

    /// Parses the file header and the DIB header; `nil` if they are not a plausible BMP.
    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 26, bytes[0] == 0x42, bytes[1] == 0x4D else { return nil }
        func uint32(_ offset: Int) -> UInt32 {
            (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
        }
        func uint16(_ offset: Int) -> UInt16 {
            UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
        }
        let dibSize = uint32(14)
        switch dibSize {
        case 12:  // BITMAPCOREHEADER: 16-bit unsigned sizes
            width = Int(uint16(18))
            height = Int(uint16(20))
        case 40, 52, 56, 64, 108, 124:  // BITMAPINFOHEADER and its successors: 32-bit signed sizes
            width = Int(Int32(bitPattern: uint32(18)))
            // A negative height means rows are stored top-down.
            height = Int(Int32(bitPattern: uint32(22)).magnitude)
        default:
            return nil
        }
        guard width > 0, height > 0 else { return nil }
    }
}
