public import Foundation
public import Logging

/// Options for a retrieval, as a list: `[.processor(p), .cacheOriginalImage, .scaleFactor(2)]`.
/// Later items override earlier ones of the same kind.
public typealias KingfisherOptionsInfo = [KingfisherOptionsInfoItem]

extension Array where Element == KingfisherOptionsInfoItem {
    /// No options.
    public static var empty: KingfisherOptionsInfo { [] }
}

/// One option. Every case of Kingfisher 8's that means something without UIKit; each case's doc says what it
/// does here.
public enum KingfisherOptionsInfoItem: Sendable {
    /// The cache processed images are read from and stored in. ``ImageCache/default`` by default.
    case targetCache(ImageCache)
    /// The cache original images are read from and stored in (`cacheOriginalImage`); the target cache by default.
    case originalCache(ImageCache)
    /// Ignore the caches and download again (the result is still cached).
    case forceRefresh
    /// Use the memory cache if it has the image, otherwise download, skipping the disk cache.
    case fromMemoryCacheOrRefresh
    /// The transition an image target runs from its current image to the loaded one. It runs only for an image
    /// that was downloaded or provided (not found in a cache) unless `forceTransition` is set. `.none` by default.
    case transition(ImageTransition)
    /// Show the transition even when the image came from a cache.
    case forceTransition
    /// Cache in memory only, not on disk.
    case cacheMemoryOnly
    /// Call the completion handler only after the image is written to the disk cache.
    case waitForCache
    /// Only look in the caches; fail with `imageNotExisting` instead of downloading.
    case onlyFromCache
    /// Decode in the background. Decoding here always happens off the caller's thread, so this has no extra effect.
    case backgroundDecode
    /// Where the completion handler runs. `.untouch` by default (see ``CallbackQueue``).
    case callbackQueue(CallbackQueue)
    /// The scale of created images. `1.0` by default.
    case scaleFactor(CGFloat)
    /// Decode every frame of an animated image up front (frames are always decoded up front here).
    case preloadAllAnimationData
    /// The processor applied after decoding. ``DefaultImageProcessor`` by default.
    case processor(any ImageProcessor)
    /// How images become bytes on disk and back. ``DefaultCacheSerializer`` by default.
    case cacheSerializer(any CacheSerializer)
    /// Changes the retrieved image each time it is handed over, after caching (the change is not cached).
    /// `nil` by default.
    case imageModifier(any ImageModifier)
    /// Keep the target's current image while loading instead of showing the placeholder (the placeholder is still
    /// shown when the target has no image).
    case keepCurrentImageWhileLoading
    /// Decode only the first frame of animated images.
    case onlyLoadFirstFrame
    /// Also cache the original downloaded image (under the plain key) when a processor is set.
    case cacheOriginalImage
    /// The image a target shows when loading fails (it replaces the placeholder); `nil` clears it. Not set by
    /// default: the target keeps what it showed.
    case onFailureImage(KFCrossPlatformImage?)
    /// ImagePrefetcher: also load prefetched images into the memory cache.
    case alsoPrefetchToMemory
    /// Read the disk cache on the calling thread.
    case loadDiskFileSynchronously
    /// Run the cache existence probe (a `stat`) on the cache's I/O threads instead of the calling thread:
    /// ``ImagePrefetcher``'s check for already-cached sources. `loadDiskFileSynchronously` still decides where the
    /// disk read itself runs.
    ///
    /// - Note: Unlike Kingfisher, ``KingfisherManager`` never touches the disk on the caller's thread, with or
    ///   without this option: only its memory lookup runs there, and its probes (a cached original, an entry to
    ///   revalidate) always run on the cache's I/O threads.
    case asyncCacheTypeCheck
    /// Options for writing cache files.
    case diskStoreWriteOptions(Data.WritingOptions)
    /// Expiration for the memory cache entry.
    case memoryCacheExpiration(StorageExpiration)
    /// What reading from the memory cache does to the expiration. `.cacheTime` by default.
    case memoryCacheAccessExtendingExpiration(ExpirationExtending)
    /// Expiration for the disk cache entry.
    case diskCacheExpiration(StorageExpiration)
    /// What reading from the disk cache does to the expiration. `.cacheTime` by default.
    case diskCacheAccessExtendingExpiration(ExpirationExtending)
    /// Where processing runs; by default a background pool sized to the cores.
    case processingQueue(CallbackQueue)
    /// A file extension for disk cache files, e.g. `"png"`.
    case forcedCacheFileExtension(String?)
    /// Priority of the download, 0...1: when more downloads wait than the downloader runs at once, higher
    /// priorities start first. `0.5` by default.
    case downloadPriority(Float)
    /// The downloader to use. ``ImageDownloader/default`` by default.
    case downloader(ImageDownloader)
    /// Changes the request before it is sent. `nil` by default.
    case requestModifier(any AsyncImageDownloadRequestModifier)
    /// Decides what to do on a redirect. `nil` (follow) by default.
    case redirectHandler(any ImageDownloadRedirectHandler)
    /// Retries failed downloads. `nil` (no retry) by default.
    case retryStrategy(any RetryStrategy)
    /// Sources tried in order when the source asked for fails (after its retries): each one goes through the
    /// caches and then the network or its provider. When all fail, the error is
    /// ``KingfisherError/ImageSettingErrorReason/alternativeSourcesExhausted(_:)`` with every error. A
    /// cancellation is never passed on to the next source. `nil` by default.
    case alternativeSources([Source])
    /// The source to load instead when the network is constrained; `nil` (or no option) loads the main source.
    /// A cache hit for the main source is still used.
    ///
    /// - Note: Kingfisher takes it when Low Data Mode forbids the main request. Linux has no constrained-network
    ///   signal: it is taken only when the downloader's ``ImageDownloader/isNetworkConstrained`` is set.
    case lowDataMode(Source?)
    /// Previews of a progressive JPEG while it downloads, shown on the image target before the final image (see
    /// ``ImageProgressive``). `nil` (no previews) by default.
    case progressiveJPEG(ImageProgressive)
    /// Where this call logs (AsyncHTTPClient's per-request logger): its retrieval, download and cache events, with
    /// the metadata you put on the logger (a request ID, say). Without it they go to the component's own logger
    /// (``KingfisherManager/logger``, ``ImageDownloader/logger``, ``ImageCache/logger``), or nowhere. Ours: not in
    /// Kingfisher.
    case logger(Logger)
    /// Whether this retrieval follows the HTTP caching headers of the image's responses (see
    /// ``HTTPCachePolicy``); the manager's ``KingfisherManager/httpCachePolicy`` when absent. Ours.
    case httpCachePolicy(HTTPCachePolicy)
}

/// The options of a ``KingfisherOptionsInfo`` list, one property each, with Kingfisher's defaults.
/// Internals read this struct; the list exists only at the API.
public struct KingfisherParsedOptionsInfo: Sendable {
    public var targetCache: ImageCache?
    public var originalCache: ImageCache?
    public var forceRefresh = false
    public var fromMemoryCacheOrRefresh = false
    public var transition: ImageTransition = .none
    public var forceTransition = false
    public var cacheMemoryOnly = false
    public var waitForCache = false
    public var onlyFromCache = false
    public var backgroundDecode = false
    public var callbackQueue: CallbackQueue = .untouch
    public var scaleFactor: CGFloat = 1.0
    public var preloadAllAnimationData = false
    public var processor: any ImageProcessor = DefaultImageProcessor.default
    public var cacheSerializer: any CacheSerializer = DefaultCacheSerializer.default
    public var imageModifier: (any ImageModifier)?
    public var keepCurrentImageWhileLoading = false
    public var onlyLoadFirstFrame = false
    public var cacheOriginalImage = false
    public var onFailureImage: KFCrossPlatformImage?? = .none
    public var alsoPrefetchToMemory = false
    public var loadDiskFileSynchronously = false
    public var asyncCacheTypeCheck = false
    public var diskStoreWriteOptions: Data.WritingOptions = []
    public var memoryCacheExpiration: StorageExpiration?
    public var memoryCacheAccessExtendingExpiration: ExpirationExtending = .cacheTime
    public var diskCacheExpiration: StorageExpiration?
    public var diskCacheAccessExtendingExpiration: ExpirationExtending = .cacheTime
    public var processingQueue: CallbackQueue?
    public var forcedExtension: String?
    public var downloadPriority: Float = 0.5
    public var downloader: ImageDownloader?
    public var requestModifier: (any AsyncImageDownloadRequestModifier)?
    public var redirectHandler: (any ImageDownloadRedirectHandler)?
    public var retryStrategy: (any RetryStrategy)?
    public var alternativeSources: [Source]?
    public var lowDataModeSource: Source?
    public var progressiveJPEG: ImageProgressive?
    /// The call's logger (``KingfisherOptionsInfoItem/logger(_:)``); `nil` by default. Ours.
    public var logger: Logger?
    /// The call's ``HTTPCachePolicy``; `nil` uses the manager's. Ours.
    public var httpCachePolicy: HTTPCachePolicy?
    public init(_ info: KingfisherOptionsInfo?) {
        self.init(folding: info ?? [])
        finish()
    }

    /// `info` applied in order over the defaults, without ``finish()``, so more options can be applied later (the
    /// manager keeps its default options like this and applies each call's options over them).
    init(folding info: KingfisherOptionsInfo) {
        apply(info)
    }

    /// Applies `info` in order; a later option wins over an earlier one and over what is already set.
    mutating func apply(_ info: KingfisherOptionsInfo) {
        for option in info {
            switch option {
            case .targetCache(let value): targetCache = value
            case .originalCache(let value): originalCache = value
            case .forceRefresh: forceRefresh = true
            case .fromMemoryCacheOrRefresh: fromMemoryCacheOrRefresh = true
            case .transition(let value): transition = value
            case .forceTransition: forceTransition = true
            case .cacheMemoryOnly: cacheMemoryOnly = true
            case .waitForCache: waitForCache = true
            case .onlyFromCache: onlyFromCache = true
            case .backgroundDecode: backgroundDecode = true
            case .callbackQueue(let value): callbackQueue = value
            case .scaleFactor(let value): scaleFactor = value
            case .preloadAllAnimationData: preloadAllAnimationData = true
            case .processor(let value): processor = value
            case .cacheSerializer(let value): cacheSerializer = value
            case .imageModifier(let value): imageModifier = value
            case .keepCurrentImageWhileLoading: keepCurrentImageWhileLoading = true
            case .onlyLoadFirstFrame: onlyLoadFirstFrame = true
            case .cacheOriginalImage: cacheOriginalImage = true
            case .onFailureImage(let value): onFailureImage = .some(value)
            case .alsoPrefetchToMemory: alsoPrefetchToMemory = true
            case .loadDiskFileSynchronously: loadDiskFileSynchronously = true
            case .asyncCacheTypeCheck: asyncCacheTypeCheck = true
            case .diskStoreWriteOptions(let value): diskStoreWriteOptions = value
            case .memoryCacheExpiration(let value): memoryCacheExpiration = value
            case .memoryCacheAccessExtendingExpiration(let value): memoryCacheAccessExtendingExpiration = value
            case .diskCacheExpiration(let value): diskCacheExpiration = value
            case .diskCacheAccessExtendingExpiration(let value): diskCacheAccessExtendingExpiration = value
            case .processingQueue(let value): processingQueue = value
            case .forcedCacheFileExtension(let value): forcedExtension = value
            case .downloadPriority(let value): downloadPriority = value
            case .downloader(let value): downloader = value
            case .requestModifier(let value): requestModifier = value
            case .redirectHandler(let value): redirectHandler = value
            case .retryStrategy(let value): retryStrategy = value
            case .alternativeSources(let value): alternativeSources = value
            case .lowDataMode(let value): lowDataModeSource = value
            case .progressiveJPEG(let value): progressiveJPEG = value
            case .logger(let value): logger = value
            case .httpCachePolicy(let value): httpCachePolicy = value
            }
        }
    }

    /// Settles what depends on the whole list: the original cache is the target cache unless one was given.
    mutating func finish() {
        if originalCache == nil { originalCache = targetCache }
    }

    /// How decoders should create images under these options.
    public var imageCreatingOptions: ImageCreatingOptions {
        ImageCreatingOptions(
            scale: scaleFactor,
            duration: 0,
            preloadAll: preloadAllAnimationData,
            onlyFirstFrame: onlyLoadFirstFrame
        )
    }
}
