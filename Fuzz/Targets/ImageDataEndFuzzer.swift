// libFuzzer entry for `ImageDataEnd` (Sources/Kingfisher/Image/ImageDataEnd.swift, with the format sniffer it asks):
// the check a cache file without a digest gets on every read, so it sees whatever is on the disk.
//
// Beyond "no crash": the answer depends on the bytes only (a `Data` slice of a larger buffer, with its non-zero
// start index, reads the same), and data of no format with a known end always counts as complete.

import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    // libFuzzer's own buffer, without a copy, so AddressSanitizer sees any read past its end
    let data = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: start), count: count, deallocator: .none)
    let complete = ImageDataEnd.isComplete(data)
    let padded = Data([0xAA, 0xBB, 0xCC]) + data
    precondition(ImageDataEnd.isComplete(padded.dropFirst(3)) == complete, "a slice reads differently")
    switch data.kf.imageFormat {
    case .unknown, .TIFF, .BMP, .SVG: precondition(complete, "no known end, yet refused")
    case .PNG, .JPEG, .GIF, .WebP, .HEIF, .AVIF: break
    }
    return 0
}
