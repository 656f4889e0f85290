// libFuzzer entry for `ProgressiveJPEGDCStream.make(from:)` (ProgressiveJPEGDCStream.swift, with
// JPEGFrameHeader.swift for a cross-check; both compiled alone with this file).
//
// Beyond "no crash", for every stream it makes:
// - it is a JPEG (SOI ... EOI) with the same frame as the input, which is progressive;
// - it is never longer than the input plus what it appends: 42 bytes of tables (DRI 6, DHT 36) and, per
//   component (at most 4), one empty AC scan: a 10-byte SOS and at most ceil(8192 * 8192 / 32767) = 2049 EOB-run
//   symbols of at most 18 bits, each byte possibly followed by a stuffed zero;
// - its own parser accepts it again (the empty scans send every AC coefficient at full precision), and that second
//   pass drops those empty scans and appends them with their 42 bytes of tables again: exactly 42 bytes longer;
// - a Data slice (non-zero start index) gives the same stream as a fresh Data.
import Foundation

private let tableBytes = 6 + 36
private let emptyScanBytes = 10 + 2 * ((2049 * 18 + 7) / 8)
private let appendedBound = tableBytes + 4 * emptyScanBytes

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    // libFuzzer's own buffer, exactly `count` bytes long, so AddressSanitizer sees any read past the end.
    let data = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: start), count: count, deallocator: .none)
    let stream = ProgressiveJPEGDCStream.make(from: data)
    let slice = (Data([0x00]) + data).dropFirst()
    precondition(ProgressiveJPEGDCStream.make(from: slice) == stream, "a Data slice gives another stream")
    guard let stream else { return 0 }

    precondition(stream.starts(with: [0xFF, 0xD8, 0xFF]) && stream.suffix(2) == [0xFF, 0xD9], "not SOI ... EOI")
    precondition(stream.count <= count + appendedBound, "\(stream.count) bytes from \(count)")
    let frame = JPEGFrameHeader(data)
    precondition(frame?.isProgressive == true, "rewrote a file whose first frame is not progressive")
    precondition(JPEGFrameHeader(Data(stream)) == frame, "the stream's frame differs from the input's")

    guard let again = ProgressiveJPEGDCStream.make(from: Data(stream)) else {
        preconditionFailure("its own stream is refused")
    }
    precondition(again.count == stream.count + tableBytes, "second pass: \(again.count) from \(stream.count)")
    return 0
}
