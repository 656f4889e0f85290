// libFuzzer entry for the header-size readers: `ImageHeaderSize.of(_:)` (`data.kf.headerPixelSize`), with what it
// calls: ImageFormat.swift (sniffing), JPEGFrameHeader.swift, BMPHeader.swift and General/Kingfisher.swift (the
// `.kf` wrapper), compiled alone with this file.
//
// Beyond "no crash", for every size it reports:
// - the data sniffs as one of the five formats it reads;
// - the size is within what that format's header fields can hold (JPEG 1...65535, matching its frame header;
//   BMP as its BMPHeader; PNG 32-bit; GIF 16-bit; WebP 24-bit for VP8X, 14-bit for VP8L and VP8), never negative;
// - a Data slice (non-zero start index) reads the same as a fresh Data.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    // libFuzzer's own buffer, exactly `count` bytes long, so AddressSanitizer sees any read past the end.
    let data = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: start), count: count, deallocator: .none)
    let size = ImageHeaderSize.of(data)
    let sliced = ImageHeaderSize.of((Data([0x00]) + data).dropFirst())
    precondition(sliced?.width == size?.width && sliced?.height == size?.height, "a Data slice reads differently")
    guard let size else { return 0 }

    precondition(size.width >= 0 && size.height >= 0, "\(size)")
    let format = data.kf.imageFormat
    switch format {
    case .JPEG:
        let frame = JPEGFrameHeader(data)
        precondition(frame?.width == size.width && frame?.height == size.height, "\(size) vs its frame")
        precondition(size.width <= 65535 && size.height <= 65535 && size.width > 0 && size.height > 0)
    case .BMP:
        let header = BMPHeader([UInt8](data))
        precondition(header?.width == size.width && header?.height == size.height, "\(size)")
    case .PNG:
        precondition(size.width <= Int(UInt32.max) && size.height <= Int(UInt32.max), "\(size)")
    case .GIF:
        precondition(size.width <= 65535 && size.height <= 65535, "\(size)")
    case .WebP:
        precondition(size.width <= 1 << 24 && size.height <= 1 << 24, "\(size)")
    default:
        preconditionFailure("a size for \(format)")
    }
    return 0
}
