import Foundation
import Kingfisher

/// Encodes a result as the URL (or the negotiation) asks: a chosen format at a quality, or the source's own format
/// when none is chosen (PNG for formats the server does not write, such as SVG).
struct ResultSerializer: DefaultDecodingCacheSerializer {
    /// The format to write; `nil` keeps the source's.
    let format: ImageFormat?
    /// 1...100, for lossy formats.
    let quality: Int
    /// The source's format when the pipeline hands over no original bytes (a result made from a cached original,
    /// as Kingfisher does it): read from the cached original's first bytes.
    var sourceFormat: @Sendable () -> ImageFormat? = { nil }

    func data(with image: KFCrossPlatformImage, original: Data?) -> Data? {
        let known = original.map { $0.kf.imageFormat } ?? sourceFormat() ?? .unknown
        let format = self.format ?? Self.keptFormat(of: known)
        return image.kf.data(format: format, compressionQuality: CGFloat(max(1, min(quality, 100))) / 100)
    }

    func image(with data: Data, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        DefaultCacheSerializer.default.image(with: data, options: options)
    }

    /// The source's format when the server writes it, else PNG.
    static func keptFormat(of format: ImageFormat) -> ImageFormat {
        switch format {
        case .JPEG: .JPEG
        case .GIF: .GIF
        case .WebP: .WebP
        case .AVIF: .AVIF
        default: .PNG
        }
    }
}
