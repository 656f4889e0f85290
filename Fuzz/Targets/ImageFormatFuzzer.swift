// libFuzzer entry for format sniffing: `ImageFormat(sniffing:)` and `data.kf.imageFormat` (ImageFormat.swift, with
// BMPHeader.swift and General/Kingfisher.swift, compiled alone with this file). Its SVG test runs Foundation's
// string search on up to 4 KB of arbitrary bytes.
//
// Beyond "no crash" (and no hang: run.sh gives each input a time limit):
// - only the first 4 KB count, and Data, a Data slice (non-zero start index) and [UInt8] sniff alike;
// - `.BMP` only for a header BMPHeader accepts; every known format has a file extension.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    // libFuzzer's own buffer, exactly `count` bytes long, so AddressSanitizer sees any read past the end.
    let data = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: start), count: count, deallocator: .none)
    let format = data.kf.imageFormat
    let bytes = [UInt8](data)
    precondition(ImageFormat(sniffing: bytes) == format, "[UInt8] sniffs differently")
    precondition(ImageFormat(sniffing: (Data([0x00]) + data).dropFirst()) == format, "a Data slice sniffs differently")
    if count > 4096 {
        precondition(ImageFormat(sniffing: bytes.prefix(4096)) == format, "bytes after 4 KB count")
    }
    if format == .BMP {
        precondition(BMPHeader(bytes) != nil, "BMP without a BMP header")
    }
    precondition((format.fileExtension == nil) == (format == .unknown), "\(format)")
    return 0
}
