public import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

extension KingfisherError {
    /// The response was missing, invalid or unusable. Codes 2001...; 2101... are ours.
    public enum ResponseErrorReason: Sendable {
        /// The response is not an HTTP response. Code 2001.
        case invalidURLResponse(response: URLResponse)
        /// The status code is not accepted by ``ImageDownloaderDelegate/isValidStatusCode(_:for:)``
        /// (`200..<400` by default). Code 2002.
        case invalidHTTPStatusCode(response: HTTPURLResponse)
        /// The transport failed: connection refused or reset, TLS, a truncated body. `error` is the HTTP client's
        /// error (an `HTTPClientError`, an `IOError` or a `NIOConnectionError`). Code 2003.
        case URLSessionError(error: any Error)
        /// ``ImageDownloaderDelegate/imageDownloader(_:didDownload:with:)`` returned `nil`. Code 2004.
        case dataModifyingFailed(task: SessionDataTask)
        /// The task finished without a response. Code 2005.
        case noURLResponse(task: SessionDataTask)
        /// The delegate cancelled the task on seeing the response. Code 2006.
        case cancelledByDelegate(response: URLResponse)
        /// The body is larger than the downloader's limit; `declared` is the `Content-Length` when that was the
        /// reason, otherwise `nil` (the limit was crossed while streaming). Code 2101 (ours).
        case responseTooLarge(url: URL, limit: Int, declared: Int64?)
        /// No response head arrived within `timeout` seconds, or the body stalled for longer than the read
        /// timeout. Code 2102 (ours).
        case requestTimedOut(url: URL, timeout: TimeInterval)
        /// More redirects than the limit, or a redirect back to a URL already visited. `urls` is the chain.
        /// Code 2103 (ours).
        case tooManyRedirects(urls: [URL], limit: Int)
        /// The download was still running `limit` seconds after it started (``ImageDownloader/Configuration/maximumDownloadDuration``),
        /// however steadily bytes were arriving; `url` is the URL being fetched then (the last redirect's target).
        /// Code 2104 (ours).
        case downloadDurationExceeded(url: URL, limit: TimeInterval)
        /// An S3-compatible store refused the request for an `s3://` URL: `code` is its error code (`NoSuchKey`,
        /// `NoSuchBucket`, `AccessDenied`, `SignatureDoesNotMatch`, `SlowDown`...) and `message` its explanation,
        /// both from its XML answer; `statusCode` the HTTP status it came with. Code 2105 (ours).
        case objectStorageError(url: URL, statusCode: Int, code: String, message: String)
    }
}

extension KingfisherError.ResponseErrorReason {
    public var errorCode: Int {
        switch self {
        case .invalidURLResponse: 2001
        case .invalidHTTPStatusCode: 2002
        case .URLSessionError: 2003
        case .dataModifyingFailed: 2004
        case .noURLResponse: 2005
        case .cancelledByDelegate: 2006
        case .responseTooLarge: 2101
        case .requestTimedOut: 2102
        case .tooManyRedirects: 2103
        case .downloadDurationExceeded: 2104
        case .objectStorageError: 2105
        }
    }

    public var errorDescription: String {
        switch self {
        case .invalidURLResponse(let response):
            return "The response for \(response.url?.absoluteString ?? "(no URL)") is not an HTTP response."
        case .invalidHTTPStatusCode(let response):
            return "The server answered \(response.url?.absoluteString ?? "(no URL)") with status "
                + "\(response.statusCode), which is not a valid status (see ImageDownloaderDelegate.isValidStatusCode)."
        case .URLSessionError(let error):
            return "The HTTP transfer failed: \(error)."
        case .dataModifyingFailed(let task):
            return "The downloader delegate returned nil for the data of \(task.url.absoluteString)."
        case .noURLResponse(let task):
            return "The download of \(task.url.absoluteString) finished without a response."
        case .cancelledByDelegate(let response):
            return "The downloader delegate cancelled \(response.url?.absoluteString ?? "the download") "
                + "after seeing its response."
        case .responseTooLarge(let url, let limit, .some(let declared)):
            return "\(url.absoluteString) declares \(declared) bytes, over the limit of \(limit) bytes "
                + "(ImageDownloader.Configuration.maximumResponseSize); nothing was downloaded."
        case .responseTooLarge(let url, let limit, .none):
            return "The body of \(url.absoluteString) grew past the limit of \(limit) bytes "
                + "(ImageDownloader.Configuration.maximumResponseSize); the download was stopped."
        case .requestTimedOut(let url, let timeout):
            return "\(url.absoluteString) did not answer within \(timeout) s (ImageDownloader.downloadTimeout)."
        case .tooManyRedirects(let urls, let limit):
            let chain = urls.map(\.absoluteString).joined(separator: " -> ")
            return "Redirects looped or exceeded the limit of \(limit) "
                + "(ImageDownloader.Configuration.maximumRedirects): \(chain)."
        case .downloadDurationExceeded(let url, let limit):
            return "The download of \(url.absoluteString) did not finish within \(limit) s "
                + "(ImageDownloader.Configuration.maximumDownloadDuration); it was stopped."
        case .objectStorageError(let url, let statusCode, let code, let message):
            return "The object store refused \(url.absoluteString) with \(code) (status \(statusCode))"
                + (message.isEmpty ? "." : ": \(message)")
        }
    }
}
