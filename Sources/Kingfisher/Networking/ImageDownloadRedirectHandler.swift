import Foundation
import KingfisherLocking

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// Decides what happens when the server redirects: follow `newRequest`, follow a changed request, or stop.
///
/// Without a handler the downloader follows redirects up to
/// ``ImageDownloader/Configuration/maximumRedirects`` and fails on a loop.
public protocol ImageDownloadRedirectHandler: Sendable {
    /// The request to follow, or `nil` to stop and treat the redirect response itself as the final response
    /// (as `URLSession` does; a `3xx` passes status validation by default but has no image in its body).
    ///
    /// - Parameters:
    ///   - task: the HTTP task being redirected.
    ///   - response: the redirect response.
    ///   - newRequest: the request the downloader would send next (the `Location` resolved against the URL).
    func handleHTTPRedirection(
        for task: SessionDataTask, response: HTTPURLResponse, newRequest: URLRequest
    ) async -> URLRequest?
}

/// A redirect handler made from a closure that calls `completion` once with the request to follow or `nil`
/// (later calls are ignored).
///
/// ```swift
/// let handler = AnyRedirectHandler { task, response, newRequest, completion in
///     completion(newRequest.url?.host == "cdn.example.com" ? newRequest : nil)
/// }
/// ```
public struct AnyRedirectHandler: ImageDownloadRedirectHandler {
    public typealias Completion = @Sendable (URLRequest?) -> Void

    let block: @Sendable (SessionDataTask, HTTPURLResponse, URLRequest, @escaping Completion) -> Void

    public init(
        handle: @escaping @Sendable (SessionDataTask, HTTPURLResponse, URLRequest, @escaping Completion) -> Void
    ) {
        block = handle
    }

    public func handleHTTPRedirection(
        for task: SessionDataTask, response: HTTPURLResponse, newRequest: URLRequest
    ) async -> URLRequest? {
        await withSanitizedCheckedContinuation { continuation in
            let once = CallbackEdge<URLRequest?> { continuation.resume(returning: $0) }
            block(task, response, newRequest) { once($0) }
        }
    }
}
