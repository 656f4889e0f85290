import KingfisherLocking
public import Logging

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

    /// The cache images are looked up in and stored to, unless `.targetCache` says otherwise. A retrieval uses
    /// the one set when it starts.
    public var cache: ImageCache {
        get { parts.withLock { $0.cache } }
        set { parts.withLock { $0.cache = newValue } }
    }

    /// The downloader network sources go through, unless `.downloader` says otherwise. A retrieval uses the one
    /// set when it starts.
    public var downloader: ImageDownloader {
        get { parts.withLock { $0.downloader } }
        set { parts.withLock { $0.downloader = newValue } }
    }

    private let parts: Locked<(downloader: ImageDownloader, cache: ImageCache)>

    /// The default options, parsed once when they are set: a retrieval reads them on every call.
    private struct Defaults: Sendable {
        var items: KingfisherOptionsInfo = []
        /// `items` applied but not finished, for applying a call's options over them.
        var folded = KingfisherParsedOptionsInfo(folding: [])
        /// `items` parsed, for a call without options.
        var parsed = KingfisherParsedOptionsInfo(nil)
    }

    private let defaults = Locked(Defaults())
    /// The workers, limits, settings and shared work of this manager's retrievals.
    let pipeline = ImagePipeline(settings: .init())

    /// The decode limits and concurrency of this manager's retrievals (providers, originals processed again, and
    /// the downloads and disk reads they make): ``ImageEngine/Configuration/default`` as it was when the manager
    /// was made, by default. Its decodes run on threads of its own, so two managers never wait for each other's.
    /// Ours.
    public var engine: ImageEngine.Configuration {
        get { pipeline.settings.engine }
        set { pipeline.change { $0.engine = newValue } }
    }

    /// Processing times of the retrievals' own processing, made with the metrics factory current at creation.
    let metrics = ManagerMetrics()

    /// Where retrievals log when their call gives no logger of its own (``KingfisherOptionsInfoItem/logger(_:)``):
    /// each retrieval's end at `debug` (`kf.key`, `kf.tier`, `kf.duration_ms`, or `kf.error`). `nil` (nothing
    /// logged) by default, as AsyncHTTPClient does; the cache and the downloader have loggers of their own. Ours.
    public var logger: Logger? {
        get { pipeline.settings.logger }
        set { pipeline.change { $0.logger = newValue } }
    }

    /// Whether retrievals follow the HTTP caching headers of their images' responses, unless a call's
    /// ``KingfisherOptionsInfoItem/httpCachePolicy(_:)`` says otherwise: ``HTTPCachePolicy/ignoresResponseHeaders``
    /// (Kingfisher's behaviour) by default. Ours.
    public var httpCachePolicy: HTTPCachePolicy {
        get { pipeline.settings.httpCachePolicy }
        set { pipeline.change { $0.httpCachePolicy = newValue } }
    }

    /// A manager over `downloader` and `cache`.
    public init(downloader: ImageDownloader, cache: ImageCache) {
        parts = Locked((downloader, cache))
    }

    /// Options applied to every retrieval, before the options passed to it (which win when both set the same
    /// option). Empty by default.
    public var defaultOptions: KingfisherOptionsInfo {
        get { defaults.withLock { $0.items } }
        set {
            let folded = KingfisherParsedOptionsInfo(folding: newValue)
            var parsed = folded
            parsed.finish()
            defaults.withLock { $0 = Defaults(items: newValue, folded: folded, parsed: parsed) }
        }
    }

    /// The default options followed by `options`, parsed: the same as parsing the two lists joined, without
    /// joining them or parsing the defaults again on every call.
    func parsedOptions(_ options: KingfisherOptionsInfo?) -> KingfisherParsedOptionsInfo {
        guard let options, !options.isEmpty else { return defaults.withLock { $0.parsed } }
        var parsed = defaults.withLock { $0.folded }
        parsed.apply(options)
        parsed.finish()
        return parsed
    }
}
