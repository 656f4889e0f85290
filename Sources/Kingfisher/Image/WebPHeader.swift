import Foundation

/// What the first chunks of a WebP say about how it decodes.
enum WebPHeader {
    /// Whether `data` is a still, opaque, lossy WebP: its image is a `VP8 ` chunk, either first or after a `VP8X`
    /// header without the alpha or animation flags (and any ICC profile). libwebp scales such an image row by row as
    /// it decodes it; a lossless (`VP8L`) one decodes whole first, and alpha or animation take more.
    static func isPlainLossy(_ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            func tag(_ at: Int) -> String? {
                guard at >= 0, at + 4 <= bytes.count else { return nil }
                return String(decoding: bytes[at..<at + 4], as: UTF8.self)
            }
            guard tag(0) == "RIFF", tag(8) == "WEBP" else { return false }
            var chunk = 12
            // At most a few chunks come before the image: VP8X, ICCP.
            for _ in 0..<4 {
                guard let name = tag(chunk), chunk + 8 <= bytes.count else { return false }
                switch name {
                case "VP8 ": return true
                case "VP8X":
                    guard chunk + 9 <= bytes.count, bytes[chunk + 8] & 0x12 == 0 else { return false }
                case "ICCP": break
                default: return false
                }
                let size = (4..<8).reduce(0) { $0 | Int(bytes[chunk + $1]) << (8 * ($1 - 4)) }
                chunk += 8 + size + (size & 1)
            }
            return false
        }
    }
}
