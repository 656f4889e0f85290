public import Foundation

/// A downloaded and processed image, with the bytes it came from.
public struct ImageLoadingResult: Sendable {
    /// The image after the options' processor.
    public let image: KFCrossPlatformImage
    /// The URL the caller asked for.
    public let url: URL?
    /// The body as downloaded (after ``ImageDownloaderDelegate``'s data modification).
    public let originalData: Data
    /// Timing of the HTTP task; shared by every caller coalesced onto it.
    public let metrics: NetworkMetrics?
    /// The final response and when its request was sent and its head received, for the HTTP cache record; `nil`
    /// for results not made by the downloader.
    var response: ResponseHeaders?
    /// A `304 Not Modified` to a conditional request: `image` is empty and `originalData` too; the cached entry
    /// is still good.
    var isNotModified = false

    public init(image: KFCrossPlatformImage, url: URL?, originalData: Data, metrics: NetworkMetrics? = nil) {
        self.image = image
        self.url = url
        self.originalData = originalData
        self.metrics = metrics
    }
}

/// What the HTTP task measured.
///
/// - Note: Kingfisher wraps `URLSessionTaskMetrics` (DNS, connect and TLS phases). The HTTP client here does not
///   report phases, so this has the totals only.
public struct NetworkMetrics: Sendable {
    /// From sending the first request to the last body byte, redirects included.
    public let totalRequestDuration: TimeInterval
    /// From sending the first request to the final response head.
    public let timeToResponseHead: TimeInterval
    /// Redirects followed.
    public let redirectCount: Int
    /// The final response's status code.
    public let httpStatusCode: Int
    /// Body bytes received for the final response.
    public let receivedBytes: Int

    public init(
        totalRequestDuration: TimeInterval, timeToResponseHead: TimeInterval, redirectCount: Int,
        httpStatusCode: Int, receivedBytes: Int
    ) {
        self.totalRequestDuration = totalRequestDuration
        self.timeToResponseHead = timeToResponseHead
        self.redirectCount = redirectCount
        self.httpStatusCode = httpStatusCode
        self.receivedBytes = receivedBytes
    }
}

/// The header fields of a final response and when its request was sent and its head received: what the HTTP
/// cache record is made from.
struct ResponseHeaders: Sendable {
    let fields: [String: String]
    let requestTime: Date
    let responseTime: Date

    /// The same, with its times moved from the system clock to `clock` (a cache's clock, which ages its records).
    func measured(by clock: () -> Date) -> ResponseHeaders {
        let offset = clock().timeIntervalSince(Date())
        return ResponseHeaders(
            fields: fields, requestTime: requestTime + offset, responseTime: responseTime + offset)
    }
}
