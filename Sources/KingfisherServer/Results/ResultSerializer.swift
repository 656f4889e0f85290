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
    /// quarters each time, down to 10), then, when none fits, made smaller at the lowest until it fits. The search
    /// is bounded (``maximumSearchEncodings`` encodings, and ``timeLimit`` for the image's pixels); a size it does
    /// not reach gets the first encoding, over the limit, as thumbor answers. Other formats are written as they are.
    var maximumBytes: Int?
    /// How long a `max_bytes` search may take, from the first encoding: the engine's limit for the image's pixels.
    var timeLimit = ImageEngine.TimeLimit()
    /// The source's format when the pipeline hands over no original bytes (a result made from an original held in
    /// memory, as Kingfisher does it): the format that image was decoded from.
    var sourceFormat: @Sendable () -> ImageFormat? = { nil }
    /// Encodes an image in a format at a quality (1...100): libvips; tests count the encodings through it.
    var encode: @Sendable (KFCrossPlatformImage, ImageFormat, Int) -> Data? = { image, format, quality in
        image.kf.data(format: format, compressionQuality: CGFloat(quality) / 100)
    }

    /// The most encodings a `max_bytes` search makes after the first: the lowest quality, up to six more
    /// qualities when that one fits, else up to eight smaller sizes.
    static let maximumSearchEncodings = 9

    func data(with image: KFCrossPlatformImage, original: Data?) -> Data? {
        let known = original.map { $0.kf.imageFormat } ?? sourceFormat() ?? .unknown
        let format = self.format ?? Self.keptFormat(of: known)
        let first = max(1, min(quality, 100))
        let started = ContinuousClock.now
        guard let data = encode(image, format, first) else { return nil }
        guard let limit = maximumBytes, data.count > limit, format == .JPEG || format == .WebP else { return data }
        let seconds = timeLimit.seconds(forPixels: image.pixelWidth * image.pixelHeight)
        let deadline = seconds < 1e9 ? started + .milliseconds(Int64(seconds * 1000)) : nil
        return fitted(image, format: format, quality: first, bytes: data.count, in: limit, until: deadline) ?? data
    }

    /// The first encoding within `limit` bytes, at thumbor's lower qualities or else smaller at the lowest; `nil`
    /// when the search ends (its encodings or its time spent) without one. `bytes`: the first encoding's size.
    private func fitted(
        _ image: KFCrossPlatformImage, format: ImageFormat, quality first: Int, bytes: Int, in limit: Int,
        until deadline: ContinuousClock.Instant?
    ) -> Data? {
        var encodings = 0
        func attempt(_ image: KFCrossPlatformImage, quality: Int) -> Data? {
            guard encodings < Self.maximumSearchEncodings, deadline.map({ ContinuousClock.now < $0 }) ?? true else {
                return nil
            }
            encodings += 1
            return encode(image, format, quality)
        }
        var qualities: [Int] = []
        while Int(Double(qualities.last ?? first) * 0.75) >= 10 {
            qualities.append(Int(Double(qualities.last ?? first) * 0.75))
        }
        let lowest = qualities.last ?? first
        // The lowest quality first: when even it does not fit, no higher one does, and only a smaller size can.
        let atLowest = qualities.isEmpty ? nil : attempt(image, quality: lowest)
        if let atLowest, atLowest.count <= limit {
            // thumbor's order: the highest quality that fits.
            for quality in qualities.dropLast() {
                guard let data = attempt(image, quality: quality) else { return atLowest }
                if data.count <= limit { return data }
            }
            return atLowest
        }
        // Smaller: to about the size the bytes suggest, then three quarters a side each step.
        var scale = min(0.75, (Double(limit) / Double(atLowest?.count ?? bytes)).squareRoot())
        while true {
            let width = Int(Double(image.pixelWidth) * scale)
            let height = Int(Double(image.pixelHeight) * scale)
            guard width >= 8, height >= 8,
                let resized = try? image.resizing(to: CGSize(width: width, height: height)),
                let data = attempt(resized, quality: lowest)
            else { return nil }
            if data.count <= limit { return data }
            scale *= 0.75
        }
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
