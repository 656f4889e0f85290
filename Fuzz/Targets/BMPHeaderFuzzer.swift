// libFuzzer entry for `BMPHeader` (Sources/Kingfisher/Image/BMPHeader.swift, compiled alone with this file).
//
// Beyond "no crash": a header it accepts has sizes a pixel-limit check can multiply (width 1...Int32.max, height
// 1...2^31, the magnitude of a negative Int32), and it reads only the first 26 bytes, so the 64-byte prefix the
// decoder passes and the 4 KB prefix the format sniffer passes give the same answer.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))  // Array indexing is always checked
    let header = BMPHeader(bytes)
    precondition(BMPHeader(Array(bytes.prefix(64))) == header, "the 64-byte prefix reads differently")
    precondition(BMPHeader(Array(bytes.prefix(26))) == header, "bytes after the DIB sizes change the answer")
    if let header {
        precondition((1...Int(Int32.max)).contains(header.width), "width \(header.width)")
        precondition((1...(1 << 31)).contains(header.height), "height \(header.height)")
        precondition(!header.width.multipliedReportingOverflow(by: header.height).overflow)
    }
    return 0
}
