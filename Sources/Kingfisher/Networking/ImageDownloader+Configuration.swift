public import AsyncHTTPClient
public import Foundation
import NIOCore

extension ImageDownloader {
    /// Every setting of a downloader that is fixed when it is created: the HTTP client's own configuration
    /// (connection pool, HTTP/2, proxy, TLS, timeouts) and the downloader's limits.
    ///
    /// ```swift
    /// var configuration = ImageDownloader.Configuration()
    /// configuration.httpClient.proxy = .server(host: "proxy.local", port: 3128)
    /// configuration.httpClient.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 16
    /// configuration.maxConcurrentDownloads = 16
    /// let downloader = ImageDownloader(name: "thumbnails", configuration: configuration)
    /// ```
    /// - Note: Kingfisher configures a `URLSessionConfiguration`; here the place is AsyncHTTPClient's
    ///   `HTTPClient.Configuration`. Its `redirectConfiguration` is ignored: the downloader follows redirects
    ///   itself, so that ``ImageDownloadRedirectHandler`` and ``maximumRedirects`` apply.
    public struct Configuration: Sendable {
        /// The AsyncHTTPClient configuration. ``defaultHTTPClientConfiguration`` by default.
        public var httpClient: HTTPClient.Configuration
        /// Downloads running at once per downloader; more wait in a queue ordered by the `downloadPriority`
        /// option (highest first, then first come). `8` by default.
        public var maxConcurrentDownloads: Int
        /// The largest body accepted, in bytes, checked against `Content-Length` before reading and while
        /// streaming. `50 MB` (52,428,800 bytes) by default.
        public var maximumResponseSize: Int
        /// Redirects followed for one request before failing with `tooManyRedirects`. `10` by default.
        public var maximumRedirects: Int
        /// The longest one download may take, in seconds, from sending its request to the last body byte (redirects
        /// included; the time waiting for a free slot is not counted, and each retry has its own). Past it the
        /// download fails with ``KingfisherError/ResponseErrorReason/downloadDurationExceeded(url:limit:)``. `60` by
        /// default; `.infinity` turns it off.
        ///
        /// It bounds what the idle timeouts cannot: a server that trickles its body a byte at a time, each byte
        /// arriving before `httpClient.timeout.read` runs out. The other limits still apply within it: the
        /// connect timeout (`httpClient.timeout.connect`, 10 s), the wait for the response head
        /// (``ImageDownloader/downloadTimeout``, 15 s), and the longest a body may stall (`httpClient.timeout.read`,
        /// 15 s).
        public var maximumDownloadDuration: TimeInterval
        /// The decode limits and concurrency of the images this downloader decodes for its own callers (a
        /// manager's retrievals bring the manager's): ``ImageEngine/Configuration/default`` by default. Ours.
        public var engine: ImageEngine.Configuration
        /// Where and as whom `s3://bucket/key` URLs are fetched. `nil` (the default) reads the standard AWS
        /// settings (``S3Configuration/fromEnvironment(_:profile:)``) when the first `s3://` URL is fetched.
        /// Ours.
        public var objectStorage: S3Configuration?

        public init(
            httpClient: HTTPClient.Configuration = Configuration.defaultHTTPClientConfiguration,
            maxConcurrentDownloads: Int = 8,
            maximumResponseSize: Int = 50 * 1024 * 1024,
            maximumRedirects: Int = 10,
            maximumDownloadDuration: TimeInterval = 60,
            engine: ImageEngine.Configuration = .default,
            objectStorage: S3Configuration? = nil
        ) {
            self.httpClient = httpClient
            self.maxConcurrentDownloads = max(1, maxConcurrentDownloads)
            self.maximumResponseSize = maximumResponseSize
            self.maximumRedirects = maximumRedirects
            self.maximumDownloadDuration = maximumDownloadDuration
            self.engine = engine
            self.objectStorage = objectStorage
        }

        /// AsyncHTTPClient's defaults with: a 10 s connect timeout, a 15 s read timeout (the longest a body may
        /// stall), no automatic retry of failed connection attempts (so a refused connection fails at once; use
        /// ``NetworkRetryStrategy`` to retry), HTTP/2 where the server offers it, no decompression, and HTTP/1
        /// socket reads of up to 1 MB, one per wake-up. With reads that large, a body that is already waiting in the
        /// socket (loopback, a fast LAN, a proxy's cache) arrives in one piece, which the downloader hands on without
        /// copying it (loopback, 200 bodies of 578 KB at 8 at a time: 0.52-0.86x curl's throughput with NIO's
        /// adaptive reads of at most 256 KB, where every body came in pieces and was copied; 0.94-1.15x with these;
        /// see docs/benchmarks-history.md). Over slower links bodies still arrive in pieces and are copied once, as
        /// before. NIO reuses the read buffer of each open connection, so an open HTTP/1 connection keeps up to 1 MB
        /// (the pages its reads filled) until AsyncHTTPClient closes it (idle for 60 s by default). The reads are set
        /// through `http1_1ConnectionDebugInitializer`; setting your own replaces them. HTTP/2 connections read as NIO
        /// does by default.
        public static var defaultHTTPClientConfiguration: HTTPClient.Configuration {
            var configuration = HTTPClient.Configuration(
                timeout: .init(connect: .seconds(10), read: .seconds(15)),
                decompression: .disabled
            )
            configuration.connectionPool.retryConnectionEstablishment = false
            configuration.httpVersion = .automatic
            configuration.http1_1ConnectionDebugInitializer = { channel in
                channel.setOption(
                    ChannelOptions.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: socketReadSize)
                ).flatMap {
                    // NIO pools a read buffer per read allowed per wake-up (4 by default): one 1 MB buffer, not four.
                    channel.setOption(ChannelOptions.maxMessagesPerRead, value: 1)
                }
            }
            return configuration
        }

        /// The size of each HTTP/1 socket read of ``defaultHTTPClientConfiguration``: 1 MB.
        static let socketReadSize = 1 << 20
    }
}
