import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// Changes the request before it is sent, asynchronously: add headers, sign the URL, or return `nil` to cancel
/// (the download then fails with ``KingfisherError/RequestErrorReason/emptyRequest``).
///
/// Downloads are coalesced on the modified request, so two callers whose modifiers produce different headers
/// get two HTTP requests.
public protocol AsyncImageDownloadRequestModifier: Sendable {
    /// The request to send instead of `request`, or `nil` to stop.
    func modified(for request: URLRequest) async -> URLRequest?

    /// Called with the caller's ``DownloadTask`` once the request is handed to the downloader (`nil` when it
    /// was not started). `nil` (no callback) by default.
    var onDownloadTaskStarted: (@Sendable (DownloadTask?) -> Void)? { get }
}

/// Changes the request before it is sent, synchronously. See ``AsyncImageDownloadRequestModifier``.
public protocol ImageDownloadRequestModifier: AsyncImageDownloadRequestModifier {
    /// The request to send instead of `request`, or `nil` to stop.
    func modified(for request: URLRequest) -> URLRequest?
}

extension ImageDownloadRequestModifier {
    public func modified(for request: URLRequest) async -> URLRequest? {
        let modify: (URLRequest) -> URLRequest? = modified(for:)
        return modify(request)
    }

    public var onDownloadTaskStarted: (@Sendable (DownloadTask?) -> Void)? { nil }
}

/// A request modifier made from a closure.
///
/// ```swift
/// let modifier = AnyModifier { request in
///     var request = request
///     request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
///     return request
/// }
/// ```
public struct AnyModifier: ImageDownloadRequestModifier {
    let block: @Sendable (URLRequest) -> URLRequest?

    /// - Parameter modify: returns the request to send, or `nil` to fail with `emptyRequest`.
    public init(modify: @escaping @Sendable (URLRequest) -> URLRequest?) {
        block = modify
    }

    public func modified(for request: URLRequest) -> URLRequest? {
        block(request)
    }
}
