// libFuzzer entry for `JPEGFrameHeader` (Sources/Kingfisher/Image/JPEGFrameHeader.swift, compiled alone with this
// file).
//
// Beyond "no crash", for every frame it reports:
// - the sizes are what a SOF segment can hold (1...65535), so the decode gate's width * height cannot overflow;
// - the bytes hold that frame: a SOFn marker of the reported kind whose height, width and component count are the
//   reported ones;
// - bytes after the frame do not change it (the header is read before a body is complete), and a Data slice
//   (non-zero start index) reads the same as a fresh Data.
import Foundation

private let sofMarkers: Set<UInt8> = Set(0xC0...0xCF).subtracting([0xC4, 0xC8, 0xCC])
private let progressiveMarkers: Set<UInt8> = [0xC2, 0xC6, 0xCA, 0xCE]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    // libFuzzer's own buffer, exactly `count` bytes long, so AddressSanitizer sees any read past the end.
    let data = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: start), count: count, deallocator: .none)
    let header = JPEGFrameHeader(data)
    precondition(JPEGFrameHeader((Data([0x00]) + data).dropFirst()) == header, "a Data slice reads differently")
    guard let header else { return 0 }

    precondition((1...65535).contains(header.width) && (1...65535).contains(header.height), "\(header)")
    precondition((0...255).contains(header.components), "\(header)")
    let bytes = [UInt8](data)
    func uint16(_ at: Int) -> Int { Int(bytes[at]) << 8 | Int(bytes[at + 1]) }
    let held = (0..<max(0, bytes.count - 9)).contains { index in
        bytes[index] == 0xFF && sofMarkers.contains(bytes[index + 1])
            && progressiveMarkers.contains(bytes[index + 1]) == header.isProgressive
            && uint16(index + 5) == header.height && uint16(index + 7) == header.width
            && Int(bytes[index + 9]) == header.components
    }
    precondition(held, "no SOF in the bytes declares \(header)")
    precondition(JPEGFrameHeader(data + [0xFF, 0xD9, 0x00]) == header, "bytes after the frame change it")
    return 0
}
