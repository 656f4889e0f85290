import ArgumentParser
import Foundation
import Kingfisher

/// `--format`: what the results are encoded as, on disk in the cache and in the output files.
enum OutputFormat: String, CaseIterable, ExpressibleByArgument {
    case png, jpeg, gif, webp, avif, original

    /// The format an explicit choice stands for; `nil` for `original`.
    var imageFormat: ImageFormat? {
        switch self {
        case .png: .PNG
        case .jpeg: .JPEG
        case .gif: .GIF
        case .webp: .WebP
        case .avif: .AVIF
        case .original: nil
        }
    }

    /// The extension of this format's cache files, so that each format, and each quality of a lossy one, is its
    /// own cache entry and a hit always has the format asked for: `png`, `q80.jpg`. `nil` for `original` (the
    /// entry Kingfisher's default serializer makes).
    func cacheFileExtension(quality: Int) -> String? {
        switch self {
        case .original: nil
        case .png, .gif: imageFormat?.fileExtension
        case .jpeg, .webp, .avif: imageFormat?.fileExtension.map { "q\(quality).\($0)" }
        }
    }

    /// The format `path`'s extension names, for `-o FILE` without `--format`.
    init?(pathExtension: String) {
        switch pathExtension.lowercased() {
        case "png": self = .png
        case "jpg", "jpeg": self = .jpeg
        case "gif": self = .gif
        case "webp": self = .webp
        case "avif": self = .avif
        default: return nil
        }
    }

    /// The serializer that writes this format at `quality` (1...100). `original` keeps the source's own format and,
    /// when nothing processes the image, its exact bytes.
    func serializer(quality: Int, keepsOriginalBytes: Bool) -> any CacheSerializer {
        guard let imageFormat else {
            var serializer = DefaultCacheSerializer()
            serializer.compressionQuality = CGFloat(quality) / 100
            serializer.preferCacheOriginalData = keepsOriginalBytes
            return serializer
        }
        return EncodingSerializer(format: imageFormat, quality: CGFloat(quality) / 100)
    }
}

/// Encodes every image in one format at one quality; reads anything decodable.
struct EncodingSerializer: CacheSerializer {
    let format: ImageFormat
    let quality: CGFloat

    func data(with image: KFCrossPlatformImage, original: Data?) -> Data? {
        image.kf.data(format: format, compressionQuality: quality)
    }

    func image(with data: Data, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        DefaultCacheSerializer.default.image(with: data, options: options)
    }
}
