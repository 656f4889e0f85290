import AsyncHTTPClient
public import Foundation
public import Logging
import NIOPosix
import KingfisherLocking

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Downloads images over HTTP(S) with AsyncHTTPClient, decodes them with the options' processor, and reports
/// progress. Concurrent requests for the same URL (and the same modified request) share one HTTP request, and
/// those with the same processing one decode of its body (each is shared work: ``SharedWork``).
///
/// ```swift
/// let result = try await ImageDownloader.default.downloadImage(with: url)
/// print(result.image.size)
/// ```
///
/// Each downloader owns one `HTTPClient` on NIO's shared event loop group, so it starts no threads of its own.
/// ``default`` lives for the whole process. A downloader made with ``init(name:configuration:)`` shuts its
/// client down when it is released, or earlier with ``shutdown()``.
///
/// As in Kingfisher, the class is `open`: a subclass can override
/// ``downloadImage(with:options:completionHandler:)`` (``KingfisherManager``, ``ImagePrefetcher`` and the other
/// `downloadImage` methods all go through it) and the `open` properties.
// @unchecked: an open class cannot be checked Sendable; its own state is in `let`s and Mutexes, and a subclass
// answers for the state it adds.
open class ImageDownloader: @unchecked Sendable {
    /// The downloader Kingfisher uses unless an option says otherwise; never shut down.
    public static let `default` = ImageDownloader(name: "default")

    /// The name given at creation.
    public let name: String
    /// The settings fixed at creation.
    public let configuration: Configuration

    let client: HTTPClient
    /// A client whose connections each carry one request: a request the pool sent on a connection the server had
    /// closed goes once more through it, on a connection that cannot have been closed before it was used.
    let freshConnectionClient: HTTPClient
    /// Clients that connect a host to the address a ``ConnectionAddressPolicy`` chose.
    let pinnedClients: PinnedClients
    /// The downloader's metrics, made with the metrics factory current when it is created.
    let metrics: DownloaderMetrics
    let scheduler: Locked<Scheduler>
    /// Where the images of the downloader's own callers are decoded and processed (a manager's retrievals bring
    /// the manager's stage): threads of the downloader's own, started on first use.
    let workers: ImageWorkers
    /// Released buffers of large response bodies, kept for the next bodies of this downloader: 8 MB (a cache's
    /// disk storage keeps as much for its reads; see ``DiskStorage/Backend``).
    let bodyBuffers = MappingPool(maximumBytes: 8 << 20)
    /// The downloads callers share, one per request (method, URL, headers): each waits for a connection slot,
    /// fetches, and hands its body to the processings waiting for it.
    let fetches = SharedWork<RequestKey, FetchOutcome>()
    /// The processings of downloaded bodies callers share, one per request and processing: each waits for its
    /// download, then decodes and processes once for all its callers.
    let processings = SharedWork<ProcessingWorkKey, Processed>()
    let settings: Locked<Settings>

    struct Settings {
        var downloadTimeout: TimeInterval = 15
        var trustedHosts: Set<String>?
        weak var delegate: (any ImageDownloaderDelegate)?
        weak var authenticationChallengeResponder: (any AuthenticationChallengeResponsible)?
        var isNetworkConstrained = false
        var isShutDown = false
        var logger: Logger?
        var connectionAddressPolicy: (any ConnectionAddressPolicy)?
        /// The settings `s3://` URLs are fetched with, once known (see ``objectStorage()``).
        var objectStorage: Result<S3Configuration, S3Configuration.EnvironmentError>?
    }

    /// Creates a downloader with its own HTTP client.
    /// - Parameters:
    ///   - name: a name for logs; must not be empty.
    ///   - configuration: the HTTP client and the limits. ``Configuration/init(httpClient:maxConcurrentDownloads:maximumResponseSize:maximumRedirects:maximumDownloadDuration:)``'s defaults by default.
    public init(name: String, configuration: Configuration = Configuration()) {
        precondition(!name.isEmpty, "[Kingfisher] An ImageDownloader needs a non-empty name.")
        self.name = name
        self.configuration = configuration
        scheduler = Locked(Scheduler(limit: configuration.maxConcurrentDownloads))
        self.metrics = DownloaderMetrics(downloaderName: name)
        self.workers = ImageWorkers(threads: configuration.engine.decodeConcurrency)
        var clientConfiguration = configuration.httpClient
        clientConfiguration.redirectConfiguration = .disallow
        // The downloader names each origin request's span itself (with the tracer current when it is sent), and
        // propagates its context: AsyncHTTPClient's own span would be a second one.
        clientConfiguration.tracing.tracer = nil
        client = HTTPClient(
            eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton),
            configuration: clientConfiguration
        )
        clientConfiguration.maximumUsesPerConnection = 1
        freshConnectionClient = HTTPClient(
            eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton),
            configuration: clientConfiguration
        )
        clientConfiguration.maximumUsesPerConnection = configuration.httpClient.maximumUsesPerConnection
        pinnedClients = PinnedClients(configuration: clientConfiguration)
        settings = Locked(Settings())
        settings.withLock { $0.authenticationChallengeResponder = self }
    }

    deinit {
        let alreadyShutDown = settings.withLock { $0.isShutDown }
        if !alreadyShutDown {
            client.shutdown { _ in }
            freshConnectionClient.shutdown { _ in }
            pinnedClients.shutdownWithoutWaiting()
        }
    }

    /// Cancels every download and shuts the HTTP client down; later downloads fail. Optional: releasing the
    /// downloader does the same. Do not call it on ``default``.
    public func shutdown() async throws {
        let first = settings.withLock { settings in
            defer { settings.isShutDown = true }
            return !settings.isShutDown
        }
        guard first else { return }
        cancelAll()
        try await client.shutdown()
        try await freshConnectionClient.shutdown()
        await pinnedClients.shutdown()
    }

    /// Chooses the address each hop of a download connects to; `nil` (the default) lets the HTTP client resolve.
    package var connectionAddressPolicy: (any ConnectionAddressPolicy)? {
        get { settings.withLock { $0.connectionAddressPolicy } }
        set { settings.withLock { $0.connectionAddressPolicy = newValue } }
    }

    /// How long to wait for the response head, in seconds. `15` by default.
    ///
    /// - Note: Kingfisher's timeout is `URLRequest.timeoutInterval`, an idle timeout. Here it bounds the wait for
    ///   the response head (connecting and redirects included); a stalled body is bounded by
    ///   `configuration.httpClient.timeout.read` (15 s by default), and the whole download, however steadily its
    ///   bytes arrive, by ``Configuration/maximumDownloadDuration`` (60 s by default).
    open var downloadTimeout: TimeInterval {
        get { settings.withLock { $0.downloadTimeout } }
        set { settings.withLock { $0.downloadTimeout = newValue } }
    }

    /// Hosts whose HTTPS certificates are not verified (self-signed certificates allowed). `nil` (none) by default.
    ///
    /// As in Kingfisher, it is what the default ``authenticationChallengeResponder`` (the downloader itself)
    /// decides with; a responder of your own decides instead.
    open var trustedHosts: Set<String>? {
        get { settings.withLock { $0.trustedHosts } }
        set { settings.withLock { $0.trustedHosts = newValue } }
    }

    /// Observes downloads and adjusts data and status validation. Held weakly. `nil` by default.
    open var delegate: (any ImageDownloaderDelegate)? {
        get { settings.withLock { $0.delegate } }
        set { settings.withLock { $0.delegate = newValue } }
    }

    /// Decides whether an HTTPS server's certificate is trusted (see ``AuthenticationChallengeResponsible``). Held
    /// weakly. The downloader itself by default, which trusts the ``trustedHosts``.
    open var authenticationChallengeResponder: (any AuthenticationChallengeResponsible)? {
        get { settings.withLock { $0.authenticationChallengeResponder } }
        set { settings.withLock { $0.authenticationChallengeResponder = newValue } }
    }

    /// Whether the network is to be treated as constrained (a metered or slow link), so that a retrieval with a
    /// ``KingfisherOptionsInfoItem/lowDataMode(_:)`` source loads that source instead of its main one. `false` by
    /// default.
    ///
    /// - Note: Kingfisher learns this from Low Data Mode on Apple platforms (a request that may not use a
    ///   constrained network fails, and the low-data source is loaded). Linux has no such signal: the low-data
    ///   source is never taken unless you set this, e.g. from your own knowledge of the link.
    open var isNetworkConstrained: Bool {
        get { settings.withLock { $0.isNetworkConstrained } }
        set { settings.withLock { $0.isNetworkConstrained = newValue } }
    }

    var isShutDown: Bool { settings.withLock { $0.isShutDown } }

    /// Where the downloader logs its HTTP tasks (AsyncHTTPClient's background-activity logger): each download's
    /// end at `debug` (`kf.url`, `kf.status`, `kf.bytes`, `kf.duration_ms`, `kf.waiters`, or `kf.error`), for tasks
    /// with a caller that gave no logger of its own (``KingfisherOptionsInfoItem/logger(_:)``; that logger gets the
    /// task's end too). `nil` (nothing logged) by default. Ours.
    public var logger: Logger? {
        get { settings.withLock { $0.logger } }
        set { settings.withLock { $0.logger = newValue } }
    }

    // MARK: Downloading

    /// Downloads the image at `url` and processes it with the options' processor; the one method every other
    /// download goes through (``KingfisherManager`` and ``ImagePrefetcher`` included), so a subclass overriding it
    /// sees them all.
    ///
    /// - Parameters:
    ///   - url: an `http` or `https` URL. Other URLs fail with ``KingfisherError/RequestErrorReason/invalidURL(request:)``.
    ///   - options: `.requestModifier`, `.redirectHandler`, `.retryStrategy`, `.downloadPriority`, `.processor`,
    ///     `.callbackQueue` (`.untouch` by default), `.scaleFactor` and the frame options apply.
    ///   - completionHandler: called exactly once, on the callback queue.
    /// - Returns: this caller's task; cancel it to cancel this caller only.
    ///
    /// Progress blocks given to the other `downloadImage` methods reach the download through this one (as
    /// Kingfisher carries them in the options); a subclass that calls `super` keeps them.
    @discardableResult
    open func downloadImage(
        with url: URL,
        options: KingfisherParsedOptionsInfo,
        completionHandler: (@Sendable (Result<ImageLoadingResult, KingfisherError>) -> Void)? = nil
    ) -> DownloadTask {
        if let handOff = DownloadHandOff.current, handOff.claim(for: url) {
            startLoad(
                url, options: options, context: handOff.context, progressBlock: handOff.progressBlock,
                handle: handOff.handle, finishesHandle: handOff.finishesHandle, completion: completionHandler)
            return handOff.handle
        }
        let handle = DownloadTask()
        startLoad(
            url, options: options, context: Self.directCallerContext(options), progressBlock: nil, handle: handle,
            finishesHandle: true, completion: completionHandler)
        return handle
    }

    /// Downloads the image at `url`, reporting progress; see ``downloadImage(with:options:completionHandler:)``.
    ///
    /// - Parameters:
    ///   - progressBlock: called as body bytes arrive, on the callback queue (`.untouch` by default: the thread
    ///     that read the bytes). Never on the main queue unless the callback queue says so.
    @discardableResult
    open func downloadImage(
        with url: URL,
        options: KingfisherOptionsInfo? = nil,
        progressBlock: DownloadProgressBlock? = nil,
        completionHandler: (@Sendable (Result<ImageLoadingResult, KingfisherError>) -> Void)? = nil
    ) -> DownloadTask {
        downloadImage(
            with: url, options: KingfisherParsedOptionsInfo(options), progressBlock: progressBlock,
            completionHandler: completionHandler)
    }

    /// Downloads the image at `url`; see ``downloadImage(with:options:completionHandler:)``.
    @discardableResult
    open func downloadImage(
        with url: URL,
        options: KingfisherOptionsInfo? = nil,
        completionHandler: (@Sendable (Result<ImageLoadingResult, KingfisherError>) -> Void)? = nil
    ) -> DownloadTask {
        downloadImage(with: url, options: KingfisherParsedOptionsInfo(options), completionHandler: completionHandler)
    }

    /// As ``downloadImage(with:options:completionHandler:)``, reporting progress on the callback queue. Ours.
    @discardableResult
    public func downloadImage(
        with url: URL,
        options: KingfisherParsedOptionsInfo,
        progressBlock: DownloadProgressBlock?,
        completionHandler: (@Sendable (Result<ImageLoadingResult, KingfisherError>) -> Void)? = nil
    ) -> DownloadTask {
        let handle = DownloadTask()
        start(
            url, options: options, context: Self.directCallerContext(options), progressBlock: progressBlock,
            handle: handle, finishesHandle: true, completion: completionHandler)
        return handle
    }

    /// Cancels every caller of the HTTP tasks for `url` (the URL asked for, or the request's URL after the
    /// modifier).
    public func cancel(url: URL) {
        let tasks = scheduler.withLock { scheduler in
            scheduler.tasks.values.filter { $0.url == url || $0.request.url == url }
        }
        for task in tasks { task.forceCancel() }
    }

    /// Cancels every download of this downloader.
    public func cancelAll() {
        let tasks = scheduler.withLock { Array($0.tasks.values) }
        for task in tasks { task.forceCancel() }
    }
}
