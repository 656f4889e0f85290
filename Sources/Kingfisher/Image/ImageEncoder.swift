import CVips
import Foundation

/// Encodes a ``KFCrossPlatformImage`` with libvips. Metadata is stripped: orientation was applied on decode
/// and colour was converted to sRGB, so neither tag would be true any more.
enum ImageEncoder {
    static func encode(
        _ image: KFCrossPlatformImage,
        as format: ImageFormat,
        quality: CGFloat
    ) throws(KingfisherError) -> Data {
        guard ImageEngine.canEncode(format) else {
            throw .processorError(reason: .imageEncodingFailed(format: format, error: nil))
        }
        guard !image.isEmptyImage else {
            throw .processorError(
                reason: .imageEncodingFailed(format: format, error: KFCrossPlatformImage.emptyImageError))
        }
        let q = quality.isFinite ? Int32((min(max(quality, 0.01), 1) * 100).rounded()) : 100
        do throws(VipsError) {
            switch format {
            case .unknown, .PNG:
                return try save(image.storage.frame(0), "pngsave") { cvips_png_save($0, $1, $2, 6, 0, 1) }
            case .JPEG:
                return try save(flattened(image.storage.frame(0)), "jpegsave") { cvips_jpeg_save($0, $1, $2, q, 0, 1) }
            case .GIF:
                return try save(image.storage, "gifsave") { cvips_gif_save($0, $1, $2) }
            case .WebP:
                let lossless: Int32 = q >= 100 ? 1 : 0
                return try save(image.storage, "webpsave") { cvips_webp_save($0, $1, $2, q, lossless) }
            case .HEIF, .AVIF:
                let av1: Int32 = format == .AVIF ? 1 : 0
                return try save(image.storage.frame(0), "heifsave") { cvips_heif_save($0, $1, $2, q, 0, av1) }
            case .TIFF:
                return try save(image.storage.frame(0), "tiffsave") { cvips_tiff_save($0, $1, $2) }
            case .BMP:
                return try save(image.storage.frame(0), "magicksave") { cvips_magick_save($0, $1, $2, "bmp") }
            case .SVG:
                throw VipsError(operation: "save SVG", message: "SVG is a vector format and cannot be encoded")
            }
        } catch {
            throw .processorError(reason: .imageEncodingFailed(format: format, error: error))
        }
    }

    /// JPEG has no alpha: transparent areas become white (`UIImage.jpegData` would make them black).
    private static func flattened(_ image: VipsImageHandle) throws(VipsError) -> VipsImageHandle {
        guard image.hasAlpha else { return image }
        return try image.apply("flatten") { cvips_flatten($0, $1, 255, 255, 255) }
    }

    private static func save(
        _ image: VipsImageHandle,
        _ operation: String,
        _ body: (
            UnsafeMutablePointer<VipsImage>, UnsafeMutablePointer<UnsafeMutableRawPointer?>, UnsafeMutablePointer<Int>
        )
            -> Int32
    ) throws(VipsError) -> Data {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        guard body(image.pointer, &buffer, &length) == 0, let buffer else {
            throw VipsRuntime.takeError(operation)
        }
        // Hand libvips' buffer to Data without copying; g_free releases it.
        return Data(bytesNoCopy: buffer, count: length, deallocator: .custom { pointer, _ in cvips_free(pointer) })
    }
}
