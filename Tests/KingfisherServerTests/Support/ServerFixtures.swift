import Foundation
import Kingfisher

/// Images the server tests make with the library (no committed files).
enum ServerFixtures {
    /// A `width` x `height` image: a red left half and a blue right half (so flips and crops show), with a
    /// `border`-pixel white frame when asked.
    static func halves(width: Int, height: Int, border: Int = 0) -> KFCrossPlatformImage {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let inside = x >= border && x < width - border && y >= border && y < height - border
                guard inside else { continue }
                let offset = (y * width + x) * 4
                let red = x < width / 2
                pixels[offset] = red ? 230 : 20
                pixels[offset + 1] = 20
                pixels[offset + 2] = red ? 20 : 230
            }
        }
        return try! KFCrossPlatformImage(rgbaPixels: pixels, width: width, height: height)
    }

    static func jpeg(width: Int, height: Int, border: Int = 0) -> Data {
        halves(width: width, height: height, border: border).kf.jpegRepresentation(compressionQuality: 0.9)!
    }

    static func png(width: Int, height: Int, border: Int = 0) -> Data {
        halves(width: width, height: height, border: border).kf.pngRepresentation()!
    }

    /// A PNG whose header declares `width` x `height` pixels but holds almost nothing: a decompression bomb's
    /// header, with a valid signature and a checksummed IHDR.
    static func pngDeclaring(width: UInt32, height: UInt32) -> Data {
        var ihdr = Data("IHDR".utf8)
        for value in [width, height] { ihdr.append(contentsOf: withUnsafeBytes(of: value.bigEndian) { Array($0) }) }
        ihdr.append(contentsOf: [8, 2, 0, 0, 0])
        var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        data.append(contentsOf: withUnsafeBytes(of: UInt32(13).bigEndian) { Array($0) })
        data.append(ihdr)
        data.append(contentsOf: withUnsafeBytes(of: crc32(ihdr).bigEndian) { Array($0) })
        // A complete file: a small compressed IDAT (an empty stored zlib block) and IEND.
        for (type, payload) in [
            ("IDAT", [0x78, 0x01, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x01] as [UInt8]), ("IEND", []),
        ] {
            var chunk = Data(type.utf8)
            chunk.append(contentsOf: payload)
            data.append(contentsOf: withUnsafeBytes(of: UInt32(payload.count).bigEndian) { Array($0) })
            data.append(chunk)
            data.append(contentsOf: withUnsafeBytes(of: crc32(chunk).bigEndian) { Array($0) })
        }
        return data
    }

    private static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// The RGBA of the pixel at (x, y).
    static func pixel(_ image: KFCrossPlatformImage, _ x: Int, _ y: Int) -> [UInt8] {
        let pixels = image.kf.rgbaPixels()
        let offset = (y * image.pixelWidth + x) * 4
        return Array(pixels[offset..<offset + 4])
    }
}
