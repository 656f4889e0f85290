import Foundation
import Kingfisher

/// What one request asks for, worked out before any fetching: the processor, the encoding (with the format the
/// client's `Accept` negotiated, when the server negotiates) and whether the answer varies by `Accept`.
struct ResultPlan: Sendable {
    let processor: ThumborProcessor
    let serializer: ResultSerializer
    /// `Vary: Accept` goes out: the URL names no format and the server picks one from `Accept`.
    let variesByAccept: Bool
    /// The result's `Cache-Control` max-age in seconds (0: `no-cache`): `max_age(...)`'s, else the server's.
    let maxAge: Int

    init(url: ThumborURL, accept: String?, configuration: ImageServer.Configuration) throws(ThumborURLError) {
        let filters = try ThumborFilters(url.filters)
        var format = filters.format?.imageFormat
        if let asked = filters.format, !ImageEngine.canEncode(asked.imageFormat) {
            // libvips built without the encoder (AVIF needs libheif with an AV1 encoder).
            throw .badFilterArgument(filter: "format", reason: "\(asked.rawValue) cannot be written by this server")
        }
        variesByAccept = format == nil && (configuration.autoWebP || configuration.autoAVIF)
        if format == nil, let accept {
            if configuration.autoAVIF, Self.accepts(accept, "image/avif"), ImageEngine.canEncode(.AVIF) {
                format = .AVIF
            } else if configuration.autoWebP, Self.accepts(accept, "image/webp") {
                format = .WebP
            }
        }
        // A box that is the result's size (crop mode, a fill, or enlarging) is refused before anything is fetched.
        if case .pixels(let width) = url.width, case .pixels(let height) = url.height,
            url.fit == .crop || filters.fills || filters.upscale == true,
            width.multipliedReportingOverflow(by: height).partialValue > configuration.maximumResultPixels
        {
            throw .resultTooLarge(width: width, height: height, limit: configuration.maximumResultPixels)
        }
        maxAge = filters.maxAge ?? configuration.maxAge
        let quality = filters.quality ?? configuration.defaultQuality
        var serializer = ResultSerializer(format: format, quality: quality)
        serializer.maximumBytes = filters.maxBytes
        serializer.timeLimit = configuration.engine.timeLimit
        self.serializer = serializer
        let output = "\(format?.fileExtension ?? "source"):\(quality)" + (filters.maxBytes.map { ":<=\($0)" } ?? "")
        processor = ThumborProcessor(
            url, filters: filters, output: output, maximumResultPixels: configuration.maximumResultPixels,
            maximumAnimationPixels: configuration.maximumAnimationPixels)
    }

    /// Whether an `Accept` header lists `mediaType` with a quality above zero.
    static func accepts(_ accept: String, _ mediaType: String) -> Bool {
        accept.split(separator: ",").contains { entry in
            let parts = entry.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard parts.first == mediaType else { return false }
            let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) }
            return (quality ?? 1) > 0
        }
    }
}
