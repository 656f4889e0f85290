public import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// Observes and adjusts an ``ImageDownloader``'s downloads. Every method has a default implementation.
///
/// Methods are called on the downloader's threads, never the main thread; keep them short.
/// - Note: Unlike Kingfisher, the protocol is `Sendable` (the downloader calls it from several threads), and
///   "a download" is one HTTP task: callers coalesced onto it share its will/did-finish calls.
public protocol ImageDownloaderDelegate: AnyObject, Sendable {
    /// The HTTP task for `url` was created with `request` (before it waits for a free download slot).
    func imageDownloader(_ downloader: ImageDownloader, willDownloadImageForURL url: URL, with request: URLRequest?)

    /// The HTTP task for `url` ended, with its final response if one arrived and the error if it failed: a
    /// transport or response error, a cancellation, or ``KingfisherError/ResponseErrorReason/dataModifyingFailed(task:)``
    /// when ``imageDownloader(_:didDownload:with:)`` returned `nil`. Called exactly once per HTTP task, after the
    /// data modifier and before images are processed.
    func imageDownloader(
        _ downloader: ImageDownloader, didFinishDownloadingImageForURL url: URL, with response: URLResponse?,
        error: (any Error)?)

    /// Replaces the downloaded data before decoding, or returns `nil` to fail with `dataModifyingFailed` (which the
    /// did-finish call then carries). Called once per HTTP task. The default returns `data`.
    func imageDownloader(_ downloader: ImageDownloader, didDownload data: Data, for url: URL) -> Data?

    /// As ``imageDownloader(_:didDownload:for:)-(_,Data,_)``, with the task. The default calls that method.
    func imageDownloader(_ downloader: ImageDownloader, didDownload data: Data, with dataTask: SessionDataTask)
        -> Data?

    /// An image was decoded and processed for one caller of `url`.
    func imageDownloader(
        _ downloader: ImageDownloader, didDownload image: KFCrossPlatformImage, for url: URL,
        with response: URLResponse?)

    /// Whether `code` is a successful status. The default accepts `200..<400`.
    func isValidStatusCode(_ code: Int, for downloader: ImageDownloader) -> Bool

    /// Decides on the final response before its body is read: `.allow` (the default) or `.cancel`, which fails
    /// with `cancelledByDelegate`. Other dispositions act as `.allow`.
    func imageDownloader(_ downloader: ImageDownloader, didReceive response: URLResponse) async
        -> URLSession.ResponseDisposition
}

extension ImageDownloaderDelegate {
    public func imageDownloader(
        _ downloader: ImageDownloader, willDownloadImageForURL url: URL, with request: URLRequest?
    ) {}

    public func imageDownloader(
        _ downloader: ImageDownloader, didFinishDownloadingImageForURL url: URL, with response: URLResponse?,
        error: (any Error)?
    ) {}

    public func imageDownloader(_ downloader: ImageDownloader, didDownload data: Data, for url: URL) -> Data? {
        data
    }

    public func imageDownloader(
        _ downloader: ImageDownloader, didDownload data: Data, with dataTask: SessionDataTask
    ) -> Data? {
        imageDownloader(downloader, didDownload: data, for: dataTask.url)
    }

    public func imageDownloader(
        _ downloader: ImageDownloader, didDownload image: KFCrossPlatformImage, for url: URL,
        with response: URLResponse?
    ) {}

    public func isValidStatusCode(_ code: Int, for downloader: ImageDownloader) -> Bool {
        (200..<400).contains(code)
    }

    public func imageDownloader(_ downloader: ImageDownloader, didReceive response: URLResponse) async
        -> URLSession.ResponseDisposition
    {
        .allow
    }
}
