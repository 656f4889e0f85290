public import Foundation

/// Something to download: a URL and the key its image is cached under.
public protocol Resource: Sendable {
    /// The key the image is cached under. Processed images use `cacheKey@processorIdentifier`.
    var cacheKey: String { get }
    /// Where the image is downloaded from.
    var downloadURL: URL { get }
}

extension Resource {
    /// A ``Source`` for this resource: a ``LocalFileImageDataProvider`` for a file URL, a network source otherwise.
    /// - Parameter overrideCacheKey: a key to use instead of ``cacheKey``.
    public func convertToSource(overrideCacheKey: String? = nil) -> Source {
        let key = overrideCacheKey ?? cacheKey
        if downloadURL.isFileURL {
            return .provider(LocalFileImageDataProvider(fileURL: downloadURL, cacheKey: key))
        }
        return .network(KF.ImageResource(downloadURL: downloadURL, cacheKey: key))
    }
}

extension KF {
    /// A URL with an optional cache key of its own.
    public struct ImageResource: Resource, Hashable {
        public let cacheKey: String
        public let downloadURL: URL

        /// - Parameter cacheKey: the cache key; the URL's ``Resource/cacheKey`` when `nil` (the default).
        public init(downloadURL: URL, cacheKey: String? = nil) {
            self.downloadURL = downloadURL
            self.cacheKey = cacheKey ?? downloadURL.cacheKey
        }
    }
}

/// Kingfisher's name for ``KF/ImageResource``.
public typealias ImageResource = KF.ImageResource

extension URL: Resource {
    /// The absolute string; for a file URL a stable key made from its standardised path
    /// (`kingfisher.local.cacheKey/path/to/file`).
    public var cacheKey: String {
        isFileURL ? localFileCacheKey : absoluteString
    }

    public var downloadURL: URL { self }

    var localFileCacheKey: String {
        "kingfisher.local.cacheKey" + standardizedFileURL.path
    }
}
