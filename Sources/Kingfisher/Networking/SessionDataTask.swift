public import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// One HTTP request shared by every caller that asked for the same request at the same time.
///
/// Callers are attached with a ``CancelToken``; the request is cancelled when the last caller cancels.
/// - Note: Kingfisher's `SessionDataTask` wraps a `URLSessionDataTask`; this one drives AsyncHTTPClient.
public final class SessionDataTask: Sendable {
    /// Identifies one caller on the task.
    public typealias CancelToken = Int

    /// The URL the first caller asked for (before redirects).
    public let originalURL: URL
    /// The request as sent, after the request modifier.
    public let request: URLRequest

    let key: RequestKey
    /// The first caller's redirect handler; callers joining later share it.
    let redirectHandler: (any ImageDownloadRedirectHandler)?
    let state = Mutex(StateMachine())
    // Strong: a task keeps its downloader alive until it ends (the downloader drops the task then).
    private let downloader: ImageDownloader

    init(
        originalURL: URL, request: URLRequest, key: RequestKey, redirectHandler: (any ImageDownloadRedirectHandler)?,
        downloader: ImageDownloader
    ) {
        self.originalURL = originalURL
        self.redirectHandler = redirectHandler
        self.request = request
        self.key = key
        self.downloader = downloader
    }

    /// Whether the HTTP work was stopped because every caller cancelled.
    public var isTaskCancelled: Bool { state.withLock { $0.wasCancelled } }

    /// Whether callers are still waiting for this task.
    public var containsCallbacks: Bool { state.withLock { !$0.callers.isEmpty } }

    /// Bytes received so far and the bytes expected (`-1` when unknown).
    public var progress: (received: Int64, expected: Int64) { state.withLock { ($0.received, $0.expected) } }

    /// Cancels the caller with `token`: it gets ``KingfisherError/RequestErrorReason/taskCancelled(task:token:)``.
    /// The request stops when no caller is left.
    public func cancel(token: CancelToken) {
        let (caller, stop) = state.withLock { $0.cancel(token: token) }
        caller?.deliver(.failure(.requestError(reason: .taskCancelled(task: self, token: token))))
        if let stop { perform(stop) }
    }

    /// Cancels every caller and the request.
    public func forceCancel() {
        let (callers, stop) = state.withLock { $0.cancelAll() }
        for (token, caller) in callers {
            caller.deliver(.failure(.requestError(reason: .taskCancelled(task: self, token: token))))
        }
        if let stop { perform(stop) }
    }

    private func perform(_ stop: StateMachine.Stop) {
        switch stop {
        case .dequeue:
            downloader.sessionTaskCancelledWhileQueued(self)
        case .cancelFetch(let fetch):
            fetch?.cancel()
        }
    }
}

/// What makes two requests the same download: method, URL and headers after the request modifier.
struct RequestKey: Hashable, Sendable {
    let method: String
    let url: String
    let headers: [String]
    let body: Data?

    init(_ request: URLRequest) {
        method = request.httpMethod ?? "GET"
        url = request.url?.absoluteString ?? ""
        headers = (request.allHTTPHeaderFields ?? [:]).map { "\($0.key.lowercased()):\($0.value)" }.sorted()
        body = request.httpBody
    }
}
