public import Foundation

/// A small version of an image file: decoded straight to at most `maxPixelSize` pixels on its longer side
/// (libvips' shrink-on-load for JPEG and WebP, so the full image never exists in memory) and encoded again in the
/// file's format (PNG when that cannot be written).
///
/// - Note: Differs from Kingfisher: only file URLs are read (Kingfisher's Core Graphics loader also takes other
///   URLs it can open), and `alwaysCreateThumbnail` has no effect, as the thumbnail is always made from the full
///   image, never from one embedded in the file.
public struct ThumbnailImageDataProvider: ImageDataProvider {
    /// The image file.
    public let url: URL
    /// The largest width or height of the thumbnail, in pixels.
    public let maxPixelSize: CGFloat
    /// Kept for Kingfisher's API; see the note above.
    public let alwaysCreateThumbnail: Bool
    /// The cache key: `<url's cache key>@thumbnail(<maxPixelSize>)` unless one was given.
    public let cacheKey: String

    public init(url: URL, maxPixelSize: CGFloat, alwaysCreateThumbnail: Bool = true, cacheKey: String? = nil) {
        self.url = url
        self.maxPixelSize = maxPixelSize
        self.alwaysCreateThumbnail = alwaysCreateThumbnail
        self.cacheKey = cacheKey ?? "\(url.cacheKey)@thumbnail(\(maxPixelSize))"
    }

    public var contentURL: URL? { url }

    /// The thumbnail's encoded bytes, made on the image processing pool.
    /// - Throws: ``KingfisherError/ImageSettingErrorReason/dataProviderError(provider:error:)`` wrapping a
    ///   ``ThumbnailSourceError`` for a URL that is not a file URL, the file error, or the decoding error.
    public func data() async throws -> Data {
        guard url.isFileURL else { throw failure(ThumbnailSourceError(url: url)) }
        let file: Data
        do {
            file = try await LocalFileImageDataProvider(fileURL: url).data()
        } catch {
            throw failure(error)
        }
        var parsed = KingfisherParsedOptionsInfo(nil)
        parsed.processor = DownsamplingImageProcessor(size: CGSize(width: maxPixelSize, height: maxPixelSize))
        let options = parsed
        let result = await ImageProcessingPool.run(on: nil) { () -> Result<Data, KingfisherError> in
            Result { () throws(KingfisherError) -> Data in
                let thumbnail = try ImageDownloader.image(from: file, options: options).get()
                var format = file.kf.imageFormat
                if !ImageEngine.canEncode(format) { format = .PNG }
                return try thumbnail.kf.encoded(as: format)
            }
        }
        return try result.mapError(failure).get()
    }

    /// `error` as this provider's error; the file reader's own provider error is unwrapped first.
    private func failure(_ error: any Error) -> KingfisherError {
        var cause = error
        if case .imageSettingError(reason: .dataProviderError(_, let inner)) = error as? KingfisherError {
            cause = inner
        }
        return .imageSettingError(reason: .dataProviderError(provider: self, error: cause))
    }
}

/// A ``ThumbnailImageDataProvider`` was given a URL that is not a file URL.
public struct ThumbnailSourceError: Error, Sendable, CustomStringConvertible {
    public let url: URL

    public var description: String {
        "ThumbnailImageDataProvider reads files only; \(url.absoluteString) is not a file URL"
    }
}
