import Foundation
import Kingfisher

/// Encodes a result as the URL (or the negotiation) asks: a chosen format at a quality, or the source's own format
/// when none is chosen (PNG for formats the server does not write, such as SVG).
struct ResultSerializer: DefaultDecodingCacheSerializer {
    /// The format to write; `nil` keeps the source's.
    let format: ImageFormat?
    /// 1...100, for lossy formats.
    let quality: Int
    /// `max_bytes(n)`: a JPEG or WebP result over it is encoded again at lower qualities (thumbor's steps: three
    /// quarters each time, down to 10), then, when none fits, made smaller (three quarters a side each time) at
    /// the lowest until it fits. Other formats are written as they are.
    var maximumBytes: Int?
    /// The source's format when the pipeline hands over no original bytes (a result made from a cached original,
    /// as Kingfisher does it): read from the cached original's first bytes.
    var sourceFormat: @Sendable () -> ImageFormat? = { nil }

    func data(with image: KFCrossPlatformImage, original: Data?) -> Data? {
        let known = original.map { $0.kf.imageFormat } ?? sourceFormat() ?? .unknown
        let format = self.format ?? Self.keptFormat(of: known)
        let first = max(1, min(quality, 100))
        guard let data = image.kf.data(format: format, compressionQuality: CGFloat(first) / 100) else { return nil }
        guard let limit = maximumBytes, data.count > limit, format == .JPEG || format == .WebP else { return data }
        return fitted(image, format: format, quality: first, in: limit) ?? data
    }

    /// The first encoding within `limit` bytes: at thumbor's lower qualities, then smaller at the lowest; `nil`
    /// when even a tiny one does not fit.
    private func fitted(
        _ image: KFCrossPlatformImage, format: ImageFormat, quality first: Int, in limit: Int
    ) -> Data? {
        var quality = first
        var lowest = first
        while Int(Double(quality) * 0.75) >= 10 {
            quality = Int(Double(quality) * 0.75)
            lowest = quality
            if let data = image.kf.data(format: format, compressionQuality: CGFloat(quality) / 100),
                data.count <= limit
            {
                return data
            }
        }
        var smaller = image
        while smaller.pixelWidth > 8 && smaller.pixelHeight > 8 {
            let size = CGSize(width: smaller.pixelWidth * 3 / 4, height: smaller.pixelHeight * 3 / 4)
            guard let resized = try? smaller.resizing(to: size) else { return nil }
            smaller = resized
            if let data = smaller.kf.data(format: format, compressionQuality: CGFloat(lowest) / 100),
                data.count <= limit
            {
                return data
            }
        }
        return nil
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
