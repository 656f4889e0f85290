public import AsyncHTTPClient
public import Foundation
import NIOPosix
import Synchronization

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// Downloads images over HTTP(S) with AsyncHTTPClient, decodes them with the options' processor, and reports
/// progress. Concurrent requests for the same URL (and the same modified request) share one HTTP request.
///
/// ```swift
/// let result = try await ImageDownloader.default.downloadImage(with: url)
/// print(result.image.size)
/// ```
///
/// Each downloader owns one `HTTPClient` on NIO's shared event loop group, so it starts no threads of its own.
/// ``default`` lives for the whole process. A downloader made with ``init(name:configuration:)`` shuts its
/// client down when it is released, or earlier with ``shutdown()``.
public final class ImageDownloader: Sendable {
    /// The downloader Kingfisher uses unless an option says otherwise; never shut down.
    public static let `default` = ImageDownloader(name: "default")

    /// The name given at creation.
    public let name: String
    /// The settings fixed at creation.
    public let configuration: Configuration

    let client: HTTPClient
    let scheduler = Mutex(Scheduler())
    private let settings: Mutex<Settings>

    struct Settings {
        var downloadTimeout: TimeInterval = 15
        var trustedHosts: Set<String> = []
        weak var delegate: (any ImageDownloaderDelegate)?
        var isShutDown = false
    }

    /// Creates a downloader with its own HTTP client.
    /// - Parameters:
    ///   - name: a name for logs; must not be empty.
    ///   - configuration: the HTTP client and the limits. ``Configuration/init(httpClient:maxConcurrentDownloads:maximumResponseSize:maximumRedirects:maximumDownloadDuration:)``'s defaults by default.
    public init(name: String, configuration: Configuration = Configuration()) {
        precondition(!name.isEmpty, "[Kingfisher] An ImageDownloader needs a non-empty name.")
        self.name = name
        self.configuration = configuration
        var clientConfiguration = configuration.httpClient
        clientConfiguration.redirectConfiguration = .disallow
        client = HTTPClient(
            eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton),
            configuration: clientConfiguration
        )
        settings = Mutex(Settings())
    }

    deinit {
        let alreadyShutDown = settings.withLock { $0.isShutDown }
        if !alreadyShutDown {
            client.shutdown { _ in }
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
    }

    /// How long to wait for the response head, in seconds. `15` by default.
    ///
    /// - Note: Kingfisher's timeout is `URLRequest.timeoutInterval`, an idle timeout. Here it bounds the wait for
    ///   the response head (connecting and redirects included); a stalled body is bounded by
    ///   `configuration.httpClient.timeout.read` (15 s by default), and the whole download, however steadily its
    ///   bytes arrive, by ``Configuration/maximumDownloadDuration`` (60 s by default).
    public var downloadTimeout: TimeInterval {
        get { settings.withLock { $0.downloadTimeout } }
        set { settings.withLock { $0.downloadTimeout = newValue } }
    }

    /// Hosts whose HTTPS certificates are not verified (self-signed certificates allowed). Empty by default.
    public var trustedHosts: Set<String> {
        get { settings.withLock { $0.trustedHosts } }
        set { settings.withLock { $0.trustedHosts = newValue } }
    }

    /// Observes downloads and adjusts data and status validation. Held weakly. `nil` by default.
    public var delegate: (any ImageDownloaderDelegate)? {
        get { settings.withLock { $0.delegate } }
        set { settings.withLock { $0.delegate = newValue } }
    }

    var isShutDown: Bool { settings.withLock { $0.isShutDown } }

    // MARK: Downloading

    /// Downloads the image at `url` and processes it with the options' processor.
    ///
    /// - Parameters:
    ///   - url: an `http` or `https` URL. Other URLs fail with ``KingfisherError/RequestErrorReason/invalidURL(request:)``.
    ///   - options: `.requestModifier`, `.redirectHandler`, `.retryStrategy`, `.downloadPriority`, `.processor`,
    ///     `.callbackQueue` (`.untouch` by default), `.scaleFactor` and the frame options apply.
    ///   - progressBlock: called as body bytes arrive, on the callback queue.
    ///   - completionHandler: called exactly once, on the callback queue.
    /// - Returns: this caller's task; cancel it to cancel this caller only.
    @discardableResult
    public func downloadImage(
        with url: URL,
        options: KingfisherOptionsInfo? = nil,
        progressBlock: DownloadProgressBlock? = nil,
        completionHandler: (@Sendable (Result<ImageLoadingResult, KingfisherError>) -> Void)? = nil
    ) -> DownloadTask {
        downloadImage(
            with: url, options: KingfisherParsedOptionsInfo(options), progressBlock: progressBlock,
            completionHandler: completionHandler)
    }

    /// As ``downloadImage(with:options:progressBlock:completionHandler:)-(_,KingfisherOptionsInfo?,_,_)``, with
    /// parsed options.
    @discardableResult
    public func downloadImage(
        with url: URL,
        options: KingfisherParsedOptionsInfo,
        progressBlock: DownloadProgressBlock? = nil,
        completionHandler: (@Sendable (Result<ImageLoadingResult, KingfisherError>) -> Void)? = nil
    ) -> DownloadTask {
        let task = DownloadTask()
        let caller = DownloadCaller(
            url: url, options: options, task: task, progressBlock: progressBlock, completion: completionHandler)
        startAttempt(for: caller, retriedCount: 0, userInfo: nil)
        return task
    }

    /// Cancels every caller of the HTTP tasks for `url` (the URL asked for, or the request's URL after the
    /// modifier).
    public func cancel(url: URL) {
        let tasks = scheduler.withLock { scheduler in
            scheduler.tasks.values.filter { $0.originalURL == url || $0.request.url == url }
        }
        for task in tasks { task.forceCancel() }
    }

    /// Cancels every download of this downloader.
    public func cancelAll() {
        let tasks = scheduler.withLock { Array($0.tasks.values) }
        for task in tasks { task.forceCancel() }
    }
}
