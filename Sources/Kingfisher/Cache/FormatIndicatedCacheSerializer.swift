public import Foundation

/// Stores every image in one format, whatever it came in: `.png` keeps transparency, `.jpeg` is small for
/// photos, `.gif` keeps animation, `.webp` (ours) does both at once.
///
/// ```swift
/// let options: KingfisherOptionsInfo = [.cacheSerializer(FormatIndicatedCacheSerializer.jpeg(compressionQuality: 0.8))]
/// ```
///
/// When the image cannot be encoded in the format, the original data's format is tried, then the original data
/// itself, then PNG.
public struct FormatIndicatedCacheSerializer: CacheSerializer {
    /// The format files are written in.
    public let imageFormat: ImageFormat

    /// Quality for JPEG (and WebP), 0...1; `nil` means `1.0`.
    public let jpegCompressionQuality: CGFloat?

    /// PNG, lossless with alpha.
    public static let png = FormatIndicatedCacheSerializer(imageFormat: .PNG, jpegCompressionQuality: nil)

    /// JPEG at quality 1.0. Transparent areas become white.
    public static let jpeg = FormatIndicatedCacheSerializer(imageFormat: .JPEG, jpegCompressionQuality: 1.0)

    /// GIF, keeping every frame of an animated image (an animated GIF's own bytes are kept).
    public static let gif = FormatIndicatedCacheSerializer(imageFormat: .GIF, jpegCompressionQuality: nil)

    /// WebP, lossless, keeping every frame of an animated image. Ours (Kingfisher has no WebP serializer).
    public static let webp = FormatIndicatedCacheSerializer(imageFormat: .WebP, jpegCompressionQuality: nil)

    /// JPEG at `compressionQuality` (0...1).
    public static func jpeg(compressionQuality: CGFloat) -> FormatIndicatedCacheSerializer {
        FormatIndicatedCacheSerializer(imageFormat: .JPEG, jpegCompressionQuality: compressionQuality)
    }

    private init(imageFormat: ImageFormat, jpegCompressionQuality: CGFloat?) {
        self.imageFormat = imageFormat
        self.jpegCompressionQuality = jpegCompressionQuality
    }

    public func data(with image: KFCrossPlatformImage, original: Data?) -> Data? {
        let quality = jpegCompressionQuality ?? 1.0
        if let data = image.kf.data(format: imageFormat, compressionQuality: quality) { return data }
        let originalFormat = original?.kf.imageFormat ?? .unknown
        if originalFormat != .unknown, originalFormat != imageFormat,
            let data = image.kf.data(format: originalFormat, compressionQuality: quality)
        {
            return data
        }
        return original ?? image.kf.pngRepresentation()
    }

    public func image(with data: Data, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        DefaultCacheSerializer.default.image(with: data, options: options)
    }
}
