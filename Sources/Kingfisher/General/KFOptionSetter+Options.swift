public import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// Cache, network and callback setters of every ``KFOptionSetter`` (``KF/Builder`` among them), as Kingfisher has
/// them. Each one sets the ``KingfisherOptionsInfoItem`` of the same name; see there for what it does and its
/// default.
extension KFOptionSetter {
    @discardableResult
    public func targetCache(_ cache: ImageCache) -> Self { changing { $0.targetCache = cache } }

    @discardableResult
    public func originalCache(_ cache: ImageCache) -> Self { changing { $0.originalCache = cache } }

    @discardableResult
    public func downloader(_ downloader: ImageDownloader) -> Self { changing { $0.downloader = downloader } }

    @discardableResult
    public func forceRefresh(_ enabled: Bool = true) -> Self { changing { $0.forceRefresh = enabled } }

    @discardableResult
    public func fromMemoryCacheOrRefresh(_ enabled: Bool = true) -> Self {
        changing { $0.fromMemoryCacheOrRefresh = enabled }
    }

    @discardableResult
    public func cacheMemoryOnly(_ enabled: Bool = true) -> Self { changing { $0.cacheMemoryOnly = enabled } }

    @discardableResult
    public func waitForCache(_ enabled: Bool = true) -> Self { changing { $0.waitForCache = enabled } }

    @discardableResult
    public func onlyFromCache(_ enabled: Bool = true) -> Self { changing { $0.onlyFromCache = enabled } }

    @discardableResult
    public func cacheOriginalImage(_ enabled: Bool = true) -> Self { changing { $0.cacheOriginalImage = enabled } }

    @discardableResult
    public func backgroundDecode(_ enabled: Bool = true) -> Self { changing { $0.backgroundDecode = enabled } }

    @discardableResult
    public func loadDiskFileSynchronously(_ enabled: Bool = true) -> Self {
        changing { $0.loadDiskFileSynchronously = enabled }
    }

    @discardableResult
    public func callbackQueue(_ queue: CallbackQueue) -> Self { changing { $0.callbackQueue = queue } }

    @discardableResult
    public func processingQueue(_ queue: CallbackQueue?) -> Self { changing { $0.processingQueue = queue } }

    @discardableResult
    public func scaleFactor(_ factor: CGFloat) -> Self { changing { $0.scaleFactor = factor } }

    @discardableResult
    public func downloadPriority(_ priority: Float) -> Self { changing { $0.downloadPriority = priority } }

    @discardableResult
    public func forcedCacheFileExtension(_ fileExtension: String?) -> Self {
        changing { $0.forcedExtension = fileExtension }
    }

    @discardableResult
    public func memoryCacheExpiration(_ expiration: StorageExpiration?) -> Self {
        changing { $0.memoryCacheExpiration = expiration }
    }

    @discardableResult
    public func memoryCacheAccessExtending(_ extending: ExpirationExtending) -> Self {
        changing { $0.memoryCacheAccessExtendingExpiration = extending }
    }

    @discardableResult
    public func diskCacheExpiration(_ expiration: StorageExpiration?) -> Self {
        changing { $0.diskCacheExpiration = expiration }
    }

    @discardableResult
    public func diskCacheAccessExtending(_ extending: ExpirationExtending) -> Self {
        changing { $0.diskCacheAccessExtendingExpiration = extending }
    }

    @discardableResult
    public func alternativeSources(_ sources: [Source]?) -> Self { changing { $0.alternativeSources = sources } }

    /// Retries a failed download up to `maxCount` times, waiting `interval` (3 seconds by default) between tries.
    @discardableResult
    public func retry(maxCount: Int, interval: DelayRetryStrategy.Interval = .seconds(3)) -> Self {
        retry(DelayRetryStrategy(maxRetryCount: maxCount, retryInterval: interval))
    }

    @discardableResult
    public func retry(_ strategy: (any RetryStrategy)?) -> Self { changing { $0.retryStrategy = strategy } }

    @discardableResult
    public func requestModifier(_ modifier: any AsyncImageDownloadRequestModifier) -> Self {
        changing { $0.requestModifier = modifier }
    }

    /// Changes each request with `modify` before it is sent.
    @discardableResult
    public func requestModifier(_ modify: @escaping @Sendable (inout URLRequest) -> Void) -> Self {
        requestModifier(
            AnyModifier { request in
                var request = request
                modify(&request)
                return request
            })
    }

    @discardableResult
    public func imageModifier(_ modifier: (any ImageModifier)?) -> Self { changing { $0.imageModifier = modifier } }

    /// Loads `source` instead of a network source while the downloader's ``ImageDownloader/isNetworkConstrained``
    /// is set (never otherwise on Linux; see ``KingfisherOptionsInfoItem/lowDataMode(_:)``).
    @discardableResult
    public func lowDataModeSource(_ source: Source?) -> Self { changing { $0.lowDataModeSource = source } }

    @discardableResult
    public func forceTransition(_ enabled: Bool = true) -> Self { changing { $0.forceTransition = enabled } }

    /// Shows `image` when loading fails; `nil` clears the target's image then.
    @discardableResult
    public func onFailureImage(_ image: KFCrossPlatformImage?) -> Self {
        changing { $0.onFailureImage = .some(image) }
    }
}

extension KF.Builder {
    @discardableResult
    public func onlyLoadFirstFrame(_ enabled: Bool = true) -> Self { with { $0.onlyLoadFirstFrame = enabled } }
}

/// Progressive JPEG previews on every option setter (``KF/Builder`` and a user's own ``KFOptionSetter``).
extension KFOptionSetter {
    /// Shows previews of a progressive JPEG while it downloads: `.progressiveJPEG(progressive)`; `nil` turns them
    /// off. Previews are blurred, from the fastest scan, with no minimum interval by default (``ImageProgressive/init()``).
    @discardableResult
    public func progressiveJPEG(_ progressive: ImageProgressive? = ImageProgressive()) -> Self {
        changing { $0.progressiveJPEG = progressive }
    }
}
