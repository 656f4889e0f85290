import CJPEGEighth
import CVips
import Foundation

/// A JPEG decoded at 1/8 scale by `kf_jpeg_eighth_decode` (the CJPEGEighth target) from its DC coefficients: one
/// pixel per 8 x 8 block, and the 2 x 2 quarters of a baseline file's 4:2:0 chroma as libjpeg computes them. A
/// baseline file's other AC codes are skipped by their lengths, where libjpeg decodes every one only to drop it; a
/// progressive file's AC scans are passed over unread, where libjpeg decodes them all into a zeroed coefficient buffer
/// of the whole image. The pixels are libjpeg's within 2 levels (its own fixed-point rounding), in two thirds of the
/// time for a baseline photo and a tenth of it for a progressive one (BENCHMARKS.md).
///
/// Only files that decoder takes for certain (8-bit Huffman, grey or YCbCr, baseline with one scan or progressive
/// without 4:2:0 chroma) decode here; for any other, and any file it doubts, `image` returns `nil` and the caller
/// decodes the file another way (libjpeg reports what is wrong with it).
enum JPEGEighthScale {
    /// Whether the decoder takes `data`'s kind of frame (its headers up to the first scan: baseline, or progressive
    /// without 4:2:0 chroma, grey or YCbCr, 8-bit Huffman). A file it takes may still be refused later, when its scans
    /// are damaged, cut short or never finish their coefficients.
    static func takesFrame(of data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
            return kf_jpeg_eighth_takes_frame(base, raw.count) != 0
        }
    }

    /// The 1/8-scale image of `bytes`, carrying the orientation and ICC profile of `header` (the file's lazily opened
    /// full-size image), or `nil` when libjpeg should decode the file.
    static func image(_ bytes: UnsafeRawBufferPointer, header: VipsImageHandle) -> VipsImageHandle? {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0
        var height: Int32 = 0
        var bands: Int32 = 0
        let status = kf_jpeg_eighth_decode(base, bytes.count, 0, &pixels, &width, &height, &bands)
        guard status == KF_JPEG_EIGHTH_OK, let pixels else { return nil }
        defer { free(pixels) }
        let size = Int(width) * Int(height) * Int(bands)
        guard
            let copied = cvips_new_from_memory_copy(
                pixels, size, width, height, bands, Int32(VIPS_FORMAT_UCHAR.rawValue))
        else {
            _ = VipsRuntime.takeError("new_from_memory_copy")
            return nil
        }
        let interpretation = bands == 1 ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB
        guard
            let image = try? VipsImageHandle(owning: copied).apply(
                "copy",
                { input, output in
                    cvips_copy_as(input, output, Int32(interpretation.rawValue))
                })
        else { return nil }
        // What the steps after the decode read from the loader's image: the turn to upright, the colour profile.
        if let orientation = header.int("orientation") { image.setInt("orientation", orientation) }
        var profile: UnsafeRawPointer?
        var profileLength = 0
        if header.hasField("icc-profile-data"),
            cvips_get_blob(header.pointer, "icc-profile-data", &profile, &profileLength) == 0, let profile
        {
            cvips_set_blob_copy(image.pointer, "icc-profile-data", profile, profileLength)
        }
        return image
    }
}
