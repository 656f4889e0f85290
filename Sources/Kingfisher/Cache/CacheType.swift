/// Where a retrieved image came from.
public enum CacheType: Sendable, Equatable {
    /// Not from a cache: downloaded or provided.
    case none
    /// From the memory cache.
    case memory
    /// From the disk cache.
    case disk

    /// Whether the image came from a cache.
    public var cached: Bool {
        switch self {
        case .memory, .disk: true
        case .none: false
        }
    }
}

/// The result of looking an image up in ``ImageCache``.
public enum ImageCacheResult: Sendable {
    /// Found on disk (and now also in memory).
    case disk(KFCrossPlatformImage)
    /// Found in memory.
    case memory(KFCrossPlatformImage)
    /// Not cached.
    case none

    /// The image, if one was found.
    public var image: KFCrossPlatformImage? {
        switch self {
        case .disk(let image), .memory(let image): image
        case .none: nil
        }
    }

    /// Where the image was found.
    public var cacheType: CacheType {
        switch self {
        case .disk: .disk
        case .memory: .memory
        case .none: .none
        }
    }
}

/// What storing an image did in each layer of ``ImageCache``.
public struct CacheStoreResult: Sendable {
    /// Storing in memory cannot fail.
    public let memoryCacheResult: Result<Void, Never>
    /// The disk write's outcome; `.success` also when the image was not meant for disk (`toDisk: false`).
    public let diskCacheResult: Result<Void, KingfisherError>
}
