public import Foundation
public import Kingfisher
public import Logging
public import CoreMetrics
import AsyncHTTPClient
import KingfisherLocking
import NIOCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A thumbor-compatible image server on the library: thumbor URLs in, processed images out, through the
/// downloader (coalesced), the decode and processing stages, and one image cache for originals and results.
/// Mount its routes in a Hummingbird app with ``addRoutes(to:)``; `kf serve` is a thin command around it.
///
/// ```swift
/// let server = try ImageServer(configuration: .init(securityKey: key), cacheDirectory: cacheURL)
/// let router = Router()
/// server.addRoutes(to: router)
/// try await Application(router: router).runService()
/// ```
///
/// Instances are stateless apart from their caches: several may share one cache directory behind a load balancer.
public final class ImageServer: Sendable {
    public let configuration: Configuration
    /// The manager every result goes through; its cache holds originals and encoded results.
    public let manager: KingfisherManager
    let logger: Logger?
    let sourceGuard: SourceGuard
    let locator: SourceLocator
    /// Encoded results recently served, by result key.
    let recentResults: MemoryStorage.Backend<ServedImage>
    /// Results being made, shared by concurrent requests for the same one.
    let production = SharedWork<String, Result<ServedImage, any Error>>()
    /// The bounded request queue: `maximumActiveRequests` make results at once, up to `maximumQueuedRequests`
    /// more wait their turn, and one beyond both is turned away at once (a `503` with `Retry-After`), so a burst
    /// costs memory in proportion to the limits, not to the burst.
    let gate: Limiter
    let metrics: ServerMetrics
    /// Where made results are shared with the other instances, when configured.
    let resultStore: SharedResultStore?
    /// Held here: the downloader keeps its delegate weakly.
    private let statusPolicy = SuccessOnlyStatusPolicy()

    /// A server whose image cache lives in `cacheDirectory` (a directory of its own: `kf-serve` is made in it).
    /// - Throws: a `KingfisherError` when the directory cannot be created.
    public convenience init(
        configuration: Configuration, cacheDirectory: URL?, logger: Logger? = nil
    ) throws(KingfisherError) {
        let cache = try ImageCache(name: "kf-serve", cacheDirectoryURL: cacheDirectory)
        self.init(configuration: configuration, cache: cache, logger: logger)
    }

    /// A server over `cache`. The memory tier of `cache` is set small: the server keeps encoded results instead.
    /// - Parameter metricsFactory: where the server's own metrics go; swift-metrics' bootstrapped factory by
    ///   default.
    public convenience init(
        configuration: Configuration, cache: ImageCache, logger: Logger? = nil,
        metricsFactory: (any MetricsFactory)? = nil
    ) {
        self.init(
            configuration: configuration, cache: cache, logger: logger, metricsFactory: metricsFactory,
            sourceGuard: SourceGuard(
                allowedSources: configuration.allowedSources, resolutionTimeout: configuration.originTimeout))
    }

    /// A server over `cache` whose sources go through `sourceGuard` (tests give one with their own resolver).
    init(
        configuration: Configuration, cache: ImageCache, logger: Logger?, metricsFactory: (any MetricsFactory)?,
        sourceGuard: SourceGuard
    ) {
        self.configuration = configuration
        self.logger = logger
        cache.memoryStorage.config.totalCostLimit = 32 * 1024 * 1024
        var httpClient = ImageDownloader.Configuration.defaultHTTPClientConfiguration
        let timeout = TimeAmount.milliseconds(Int64(min(max(0.001, configuration.originTimeout), 86_400) * 1000))
        httpClient.timeout.connect = timeout
        httpClient.timeout.read = timeout
        let downloader = ImageDownloader(
            name: "kf-serve",
            configuration: ImageDownloader.Configuration(
                httpClient: httpClient,
                maxConcurrentDownloads: max(8, configuration.maximumActiveRequests),
                maximumResponseSize: configuration.maximumSourceBytes,
                maximumRedirects: 5,
                maximumDownloadDuration: configuration.originTimeout,
                engine: configuration.engine, objectStorage: configuration.objectStorage))
        downloader.downloadTimeout = configuration.originTimeout
        downloader.delegate = statusPolicy
        downloader.logger = logger
        // Every hop connects to the address the guard vetted, not to a second DNS answer.
        downloader.connectionAddressPolicy = sourceGuard
        let manager = KingfisherManager(downloader: downloader, cache: cache)
        manager.engine = configuration.engine
        manager.httpCachePolicy = .followsResponseHeaders
        manager.logger = logger
        self.manager = manager
        self.sourceGuard = sourceGuard
        locator = SourceLocator(
            rootDirectory: configuration.rootDirectory, fallsBackToHTTP: configuration.rootFallsBackToHTTP,
            s3: configuration.s3Loader)
        resultStore = configuration.resultStore.map { place in
            SharedResultStore(
                place,
                storage: configuration.objectStorage ?? (try? S3Configuration.fromEnvironment()) ?? S3Configuration(),
                timeout: configuration.originTimeout, logger: logger)
        }
        recentResults = MemoryStorage.Backend(
            config: MemoryStorage.Config(totalCostLimit: max(0, configuration.resultMemoryBytes)))
        gate = Limiter(
            limit: max(1, configuration.maximumActiveRequests), maxWaiting: max(0, configuration.maximumQueuedRequests))
        metrics = ServerMetrics(factory: metricsFactory ?? MetricsSystem.factory)
    }

    /// How many results were made (not joined, not served from a cache), for tests and metrics.
    public var resultsMade: Int { production.startedCount }
}

/// Only `2xx` (and `304`, for revalidation) are successes for the server's downloader: a redirect the source guard
/// stopped must fail rather than hand its body to the decoder.
private final class SuccessOnlyStatusPolicy: ImageDownloaderDelegate, Sendable {
    func isValidStatusCode(_ code: Int, for downloader: ImageDownloader) -> Bool {
        (200..<300).contains(code) || code == 304
    }
}
