public import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// Cache, network and callback setters of ``KF/Builder``, as Kingfisher's `KFOptionSetter` has them. Each one
/// sets the ``KingfisherOptionsInfoItem`` of the same name; see there for what it does and its default.
extension KF.Builder {
    @discardableResult
    public func targetCache(_ cache: ImageCache) -> Self { with { $0.targetCache = cache } }

    @discardableResult
    public func originalCache(_ cache: ImageCache) -> Self { with { $0.originalCache = cache } }

    @discardableResult
    public func downloader(_ downloader: ImageDownloader) -> Self { with { $0.downloader = downloader } }

    @discardableResult
    public func forceRefresh(_ enabled: Bool = true) -> Self { with { $0.forceRefresh = enabled } }

    @discardableResult
    public func fromMemoryCacheOrRefresh(_ enabled: Bool = true) -> Self {
        with { $0.fromMemoryCacheOrRefresh = enabled }
    }

    @discardableResult
    public func cacheMemoryOnly(_ enabled: Bool = true) -> Self { with { $0.cacheMemoryOnly = enabled } }

    @discardableResult
    public func waitForCache(_ enabled: Bool = true) -> Self { with { $0.waitForCache = enabled } }

    @discardableResult
    public func onlyFromCache(_ enabled: Bool = true) -> Self { with { $0.onlyFromCache = enabled } }

    @discardableResult
    public func cacheOriginalImage(_ enabled: Bool = true) -> Self { with { $0.cacheOriginalImage = enabled } }

    @discardableResult
    public func backgroundDecode(_ enabled: Bool = true) -> Self { with { $0.backgroundDecode = enabled } }

    @discardableResult
    public func onlyLoadFirstFrame(_ enabled: Bool = true) -> Self { with { $0.onlyLoadFirstFrame = enabled } }

    @discardableResult
    public func loadDiskFileSynchronously(_ enabled: Bool = true) -> Self {
        with { $0.loadDiskFileSynchronously = enabled }
    }

    @discardableResult
    public func callbackQueue(_ queue: CallbackQueue) -> Self { with { $0.callbackQueue = queue } }

    @discardableResult
    public func processingQueue(_ queue: CallbackQueue?) -> Self { with { $0.processingQueue = queue } }

    @discardableResult
    public func scaleFactor(_ factor: CGFloat) -> Self { with { $0.scaleFactor = factor } }

    @discardableResult
    public func downloadPriority(_ priority: Float) -> Self { with { $0.downloadPriority = priority } }

    @discardableResult
    public func forcedCacheFileExtension(_ fileExtension: String?) -> Self {
        with { $0.forcedExtension = fileExtension }
    }

    @discardableResult
    public func memoryCacheExpiration(_ expiration: StorageExpiration?) -> Self {
        with { $0.memoryCacheExpiration = expiration }
    }

    @discardableResult
    public func memoryCacheAccessExtending(_ extending: ExpirationExtending) -> Self {
        with { $0.memoryCacheAccessExtendingExpiration = extending }
    }

    @discardableResult
    public func diskCacheExpiration(_ expiration: StorageExpiration?) -> Self {
        with { $0.diskCacheExpiration = expiration }
    }

    @discardableResult
    public func diskCacheAccessExtending(_ extending: ExpirationExtending) -> Self {
        with { $0.diskCacheAccessExtendingExpiration = extending }
    }

    @discardableResult
    public func alternativeSources(_ sources: [Source]?) -> Self { with { $0.alternativeSources = sources } }

    /// Retries a failed download up to `maxCount` times, waiting `interval` (3 seconds by default) between tries.
    @discardableResult
    public func retry(maxCount: Int, interval: DelayRetryStrategy.Interval = .seconds(3)) -> Self {
        retry(DelayRetryStrategy(maxRetryCount: maxCount, retryInterval: interval))
    }

    @discardableResult
    public func retry(_ strategy: (any RetryStrategy)?) -> Self { with { $0.retryStrategy = strategy } }

    @discardableResult
    public func requestModifier(_ modifier: any AsyncImageDownloadRequestModifier) -> Self {
        with { $0.requestModifier = modifier }
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
    public func imageModifier(_ modifier: (any ImageModifier)?) -> Self { with { $0.imageModifier = modifier } }

    @discardableResult
    public func redirectHandler(_ handler: any ImageDownloadRedirectHandler) -> Self {
        with { $0.redirectHandler = handler }
    }
}
