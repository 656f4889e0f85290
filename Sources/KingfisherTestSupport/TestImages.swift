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
}
