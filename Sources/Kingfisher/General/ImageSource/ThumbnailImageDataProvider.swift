public import Foundation

/// A small version of an image file or an http(s) image: decoded straight to at most `maxPixelSize` pixels on its
/// longer side (libvips' shrink-on-load for JPEG and WebP, so the full image never exists in memory) and encoded
/// again in the image's format (PNG when that cannot be written).
///
/// ```swift
/// let provider = ThumbnailImageDataProvider(url: photoURL, maxPixelSize: 256)
/// let result = try await KingfisherManager.shared.retrieveImage(with: .provider(provider))
/// ```
///
/// An http(s) image is downloaded by ``downloader`` (its limits, timeout, retries and coalescing apply) and shrunk
/// while it is decoded on the image processing pool; a file is read from disk.
///
/// - Note: Differs from Kingfisher: a thumbnail embedded in the file (EXIF) is never used; the thumbnail is always
///   made from the image itself. Only file and http(s) URLs are read.
public struct ThumbnailImageDataProvider: ImageDataProvider {
    /// Kingfisher's errors of this provider, wrapped by the manager in
    /// ``KingfisherError/ImageSettingErrorReason/dataProviderError(provider:error:)``.
    public enum ThumbnailImageDataProviderError: Error, Sendable, Hashable {
        /// The bytes are not an image this build decodes (empty, or no known format).
        case invalidImageSource
        /// The image could not be decoded into a thumbnail (corrupt or truncated data).
        case invalidThumbnail
        /// The thumbnail could not be encoded.
        case writeDataError
        /// Kingfisher's error for an image destination that fails to finalise; encoding here is one step, so this
        /// is never thrown (``writeDataError`` covers it).
        case finalizeDataError
    }

    /// The image: a file URL or an http(s) URL.
    public let url: URL
    /// The largest width or height of the thumbnail, in pixels.
    public let maxPixelSize: CGFloat
    /// Whether to make a thumbnail even when the image already fits in ``maxPixelSize``. With `false` such an image's
    /// bytes are handed over unchanged (nothing is decoded or encoded again). `true` by default.
    public let alwaysCreateThumbnail: Bool
    /// The cache key: `<url>_thumb_<maxPixelSize>_<alwaysCreateThumbnail>` unless one was given (as in Kingfisher).
    public let cacheKey: String
    /// The downloader for http(s) URLs. ``ImageDownloader/default`` by default (ours).
    public let downloader: ImageDownloader

    public init(
        url: URL, maxPixelSize: CGFloat, alwaysCreateThumbnail: Bool = true, cacheKey: String? = nil,
        downloader: ImageDownloader = .default
    ) {
        self.url = url
        self.maxPixelSize = maxPixelSize
        self.alwaysCreateThumbnail = alwaysCreateThumbnail
        self.cacheKey = cacheKey ?? "\(url.absoluteString)_thumb_\(maxPixelSize)_\(alwaysCreateThumbnail)"
        self.downloader = downloader
    }

    public var contentURL: URL? { url }

    /// The thumbnail's encoded bytes, made on the image processing pool.
    /// - Throws: ``KingfisherError/ImageSettingErrorReason/dataProviderError(provider:error:)`` wrapping a
    ///   ``ThumbnailSourceError`` for a URL that is neither a file nor http(s), the file or download error, a
    ///   ``ThumbnailImageDataProviderError`` when the bytes are not an image, do not decode or the thumbnail does
    ///   not encode, or the ``KingfisherError`` of a limit (pixels, frames, time) the image exceeds.
    public func data() async throws -> Data {
        let (original, shrunk) = try await load()
        let limit = maxPixelSize
        let always = alwaysCreateThumbnail
        let engine = downloader.configuration.engine
        let side = limit.isFinite && limit >= 1 ? Int(min(limit, CGFloat(Int32.max)).rounded(.up)) : nil
        let result = await downloader.workers.run(on: nil, decoding: original, shrunkToFit: side, engine: engine) {
            () -> Result<Data, KingfisherError> in
            Result { () throws(KingfisherError) -> Data in
                guard limit.isFinite, limit >= 1 else {
                    let processor = DownsamplingImageProcessor(size: CGSize(width: limit, height: limit))
                    throw .processorError(reason: .processingFailed(processor: processor, item: .data(original)))
                }
                let side = Int(min(limit, CGFloat(1 << 30)).rounded(.up))
                if !always {
                    let (width, height) = try ImageDecoder.headerPixelSize(of: original)
                    if CGFloat(max(width, height)) <= limit { return original }
                }
                let thumbnail: KFCrossPlatformImage
                if let shrunk {
                    thumbnail = shrunk
                } else {
                    thumbnail = try ImageDecoder.thumbnail(original, maxPixelSize: side, scale: 1)
                }
                var format = original.kf.imageFormat
                if !ImageEngine.canEncode(format) { format = .PNG }
                return try thumbnail.kf.encoded(as: format)
            }
        }
        return try result.mapError { failure(Self.kingfishersReason(for: $0)) }.get()
    }

    /// Kingfisher's error for a decoding or encoding failure; the limits (ours) stay as they are.
    private static func kingfishersReason(for error: KingfisherError) -> any Error {
        guard case .processorError(let reason) = error else { return error }
        switch reason {
        case .emptyImageData, .unsupportedImageFormat: return ThumbnailImageDataProviderError.invalidImageSource
        case .imageDecodingFailed: return ThumbnailImageDataProviderError.invalidThumbnail
        case .imageEncodingFailed: return ThumbnailImageDataProviderError.writeDataError
        default: return error
        }
    }

    /// The image's bytes and, for a download, the thumbnail the downloader already decoded them to.
    private func load() async throws -> (original: Data, thumbnail: KFCrossPlatformImage?) {
        if url.isFileURL {
            do {
                return (try await LocalFileImageDataProvider(fileURL: url).data(), nil)
            } catch {
                throw failure(error)
            }
        }
        guard ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
            throw failure(ThumbnailSourceError(url: url))
        }
        var options = KingfisherParsedOptionsInfo(nil)
        options.processor = DownsamplingImageProcessor(size: CGSize(width: maxPixelSize, height: maxPixelSize))
        options.callbackQueue = .untouch
        do {
            let loaded = try await downloader.downloadImage(with: url, options: options)
            return (loaded.originalData, loaded.image)
        } catch {
            throw failure(error)
        }
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

/// A ``ThumbnailImageDataProvider`` was given a URL that is neither a file URL nor an http(s) URL.
public struct ThumbnailSourceError: Error, Sendable, CustomStringConvertible {
    public let url: URL

    public var description: String {
        "ThumbnailImageDataProvider reads file and http(s) URLs only; \(url.absoluteString) is neither"
    }
}
