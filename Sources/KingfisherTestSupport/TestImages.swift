import CVips
public import Foundation
import Kingfisher

/// Images the tests make with libvips, where the library has no public way to make them.
public enum TestImages {
    /// A progressive JPEG (ten scans) of busy stripes and speckle, so each scan adds visible detail.
    public static func progressiveJPEG(width: Int, height: Int) -> Data {
        ImageEngine.startLibvips()  // before calling libvips directly
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for index in bytes.indices {
            let (pixel, band) = index.quotientAndRemainder(dividingBy: 3)
            let (y, x) = pixel.quotientAndRemainder(dividingBy: width)
            bytes[index] = UInt8(
                truncatingIfNeeded: (x / 4 + y / 6 + band) % 2 * 90 + ((x &* 7919) ^ (y &* 104_729)) & 0x7F)
        }
        let raw = bytes.withUnsafeBytes {
            cvips_new_from_memory_copy(
                $0.baseAddress, $0.count, Int32(width), Int32(height), 3, Int32(VIPS_FORMAT_UCHAR.rawValue))!
        }
        var tagged: UnsafeMutablePointer<VipsImage>?
        precondition(cvips_copy_as(raw, &tagged, Int32(VIPS_INTERPRETATION_sRGB.rawValue)) == 0)
        cvips_unref(raw)
        defer { cvips_unref(tagged) }
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        precondition(cvips_jpeg_save_layout(tagged, &buffer, &length, 85, 1, 1, 0) == 0)
        defer { cvips_free(buffer) }
        return Data(bytes: buffer!, count: length)
    }

    /// `jpeg` with its frame header changed to declare `width` x `height`, cut after its scan header and a few
    /// bytes of scan, ended by an EOI when `ended`: a file that claims far more pixels than its bytes can hold.
    public static func jpegCutAfterItsHeader(_ jpeg: Data, claiming width: Int, _ height: Int, ended: Bool) -> Data {
        var bytes = [UInt8](jpeg)
        var at = 2
        var cut = bytes.count
        while at + 4 < bytes.count {
            let marker = bytes[at + 1]
            let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            if [0xC0, 0xC1, 0xC2].contains(marker) {
                let size = [height >> 8, height & 0xFF, width >> 8, width & 0xFF].map(UInt8.init)
                bytes.replaceSubrange(at + 5..<at + 9, with: size)
            }
            if marker == 0xDA {
                cut = at + 2 + length
                break
            }
            at += 2 + length
        }
        return Data(bytes[..<cut] + [0x12, 0x34, 0x56, 0x78] + (ended ? [0xFF, 0xD9] : []))
    }
}
