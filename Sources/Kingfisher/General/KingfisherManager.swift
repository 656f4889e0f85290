import Synchronization

/// Called with the download task that now carries a retrieval, when it changes (for example when an alternative
/// source starts downloading); `nil` when no download runs any more.
public typealias DownloadTaskUpdatedBlock = @Sendable (_ newTask: DownloadTask?) -> Void

/// Gets images: from the memory cache, the disk cache, the original-image cache, or else from the network or a
/// data provider, then processes and caches them. The engine behind `KF` and the view extensions.
///
/// ```swift
/// let result = try await KingfisherManager.shared.retrieveImage(with: url, options: [.processor(p)])
/// print(result.cacheType, result.image.size)
/// ```
///
/// The order of lookups: the memory cache under `key@processor`, the disk cache under the same key, then (for a
/// processor other than the default) the original image under the plain key in the original cache, processed
/// again without a download; then the downloader (network sources) or the provider. New images are stored in
/// memory at once and on disk in the background, unless `waitForCache` asks to wait.
///
/// - Note: Unlike Kingfisher on Apple platforms, completion handlers run on ``CallbackQueue/untouch`` by default
///   (no main run loop is needed), and a cancelled retrieval never writes to the cache after it was cancelled.
public final class KingfisherManager: Sendable {
    /// The manager `KF` and the view extensions use, over ``ImageCache/default`` and ``ImageDownloader/default``.
    public static let shared = KingfisherManager(
        downloader: .default, cache: .default)

    /// The cache images are looked up in and stored to, unless `.targetCache` says otherwise.
    public let cache: ImageCache

    /// The downloader network sources go through, unless `.downloader` says otherwise.
    public let downloader: ImageDownloader

    private let storedDefaultOptions = Mutex<KingfisherOptionsInfo>([])

    /// A manager over `downloader` and `cache`.
    public init(downloader: ImageDownloader, cache: ImageCache) {
        self.downloader = downloader
        self.cache = cache
    }

    /// Options applied to every retrieval, before the options passed to it (which win when both set the same
    /// option). Empty by default.
    public var defaultOptions: KingfisherOptionsInfo {
        get { storedDefaultOptions.withLock { $0 } }
        set { storedDefaultOptions.withLock { $0 = newValue } }
    }

    /// The default options followed by `options`, parsed.
    func parsedOptions(_ options: KingfisherOptionsInfo?) -> KingfisherParsedOptionsInfo {
        KingfisherParsedOptionsInfo(defaultOptions + (options ?? []))
    }
}
