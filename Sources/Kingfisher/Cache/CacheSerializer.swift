public import Foundation

/// Converts between images and the bytes the disk cache stores.
public protocol CacheSerializer: Sendable {
    /// The bytes to store for `image`; `original` is the data it was decoded from, when known.
    func data(with image: KFCrossPlatformImage, original: Data?) -> Data?

    /// The image for stored bytes, decoded with the options' scale and frame settings.
    func image(with data: Data, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage?

    /// Whether ``data(with:original:)`` may return `original` unchanged. `false` by default.
    var originalDataUsed: Bool { get }
}

extension CacheSerializer {
    public var originalDataUsed: Bool { false }
}

/// Stores images in the format they came in: the original data's format when it is known and can be encoded,
/// otherwise GIF for an animated image and PNG for a still one. An animated GIF keeps its frames and timing.
///
/// - Note: With `preferCacheOriginalData`, original data that is not a recognisable image is not stored as is
///   (Kingfisher would store it); the image is encoded instead.
public struct DefaultCacheSerializer: CacheSerializer {
    public static let `default` = DefaultCacheSerializer()

    /// Quality for lossy formats (JPEG, WebP, HEIF, AVIF), 0...1. `1.0` by default.
    public var compressionQuality: CGFloat = 1.0

    /// Store the original data itself when there is any, instead of re-encoding the image. Faster, and keeps
    /// the file exactly as downloaded, but the processed image is then not what is stored. `false` by default.
    public var preferCacheOriginalData: Bool = false

    public init() {}

    public var originalDataUsed: Bool { preferCacheOriginalData }

    public func data(with image: KFCrossPlatformImage, original: Data?) -> Data? {
        // Only original data that is an image is worth keeping; anything else would be a corrupt cache file.
        if preferCacheOriginalData, let original, original.kf.imageFormat != .unknown { return original }
        var format = original?.kf.imageFormat ?? .unknown
        if format == .unknown || !ImageEngine.canEncode(format) {
            format = image.kf.frameDurations.count > 1 ? .GIF : .PNG
        }
        // An animated GIF's own bytes are its most faithful encoding (`gifRepresentation` returns them).
        return image.kf.data(format: format, compressionQuality: compressionQuality)
    }

    public func image(with data: Data, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        KingfisherWrapper<KFCrossPlatformImage>.image(data: data, options: options.imageCreatingOptions)
    }
}

/// A serializer whose ``CacheSerializer/image(with:options:)`` is the default decoding of the bytes (the options'
/// scale and frame settings, nothing else). A retrieval that processes a cached original again then hands the
/// processor the original's bytes rather than its decoded image, so that a processor that decodes smaller
/// (``DownsamplingImageProcessor``: shrink-on-load) never decodes the original at full size. Ours.
package protocol DefaultDecodingCacheSerializer: CacheSerializer {}

extension DefaultCacheSerializer: DefaultDecodingCacheSerializer {}
extension FormatIndicatedCacheSerializer: DefaultDecodingCacheSerializer {}
