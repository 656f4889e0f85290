public import Foundation
import NIOCore
import KingfisherLocking
import Logging

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// One HTTP request shared by every caller that asked for the same request at the same time.
///
/// Callers are attached with a ``CancelToken``; the request is cancelled when the last caller cancels.
/// - Note: Kingfisher's `SessionDataTask` wraps a `URLSessionDataTask`; this one drives AsyncHTTPClient. The
///   download it stands for is shared work of the downloader (see ``ImageDownloader``): this object is the handle
///   its callers see, and what the fetch keeps of the body while it arrives.
public final class SessionDataTask: Sendable {
    /// Identifies one caller on the task.
    public typealias CancelToken = Int

    /// The URL of the request as first sent (after the request modifier, before redirects), as Kingfisher's
    /// `originalURL` is the URL of the `URLSessionDataTask`'s original request.
    public let originalURL: URL?
    /// The request as sent, after the request modifier.
    public let request: URLRequest
    /// The URL the first caller asked for (before the request modifier); the URL the delegate is told about.
    let url: URL
    /// The body so far while it downloads, then the whole body until the delegate has seen it (see ``mutableData``).
    let body = Locked(Body.receiving(nil))

    let key: RequestKey
    /// The first caller's redirect handler; callers joining later share it.
    let redirectHandler: (any ImageDownloadRedirectHandler)?
    /// The first caller's store of cut-off bodies, for resuming this download and keeping it if cut off.
    let partialDownloads: PartialDownloadStore?
    /// Where AsyncHTTPClient logs the request: the logger of the call that started it, else the downloader's
    /// (AsyncHTTPClient's per-request logger); `nil` logs nothing.
    let requestLogger: Logger?
    let state = Locked(StateMachine())
    /// The processings waiting for the body (each shared by the callers of one processor): their callers are the
    /// task's callers. Held weakly: a processing holds the download it waits for.
    private let processings = Locked<[WeakProcessing]>([])

    /// Where a large body's buffer comes from and goes back to: the downloader's.
    private let bodyBuffers: MappingPool

    init(
        originalURL: URL, request: URLRequest, key: RequestKey, redirectHandler: (any ImageDownloadRedirectHandler)?,
        partialDownloads: PartialDownloadStore? = nil, requestLogger: Logger? = nil, bodyBuffers: MappingPool
    ) {
        self.bodyBuffers = bodyBuffers
        self.partialDownloads = partialDownloads
        self.requestLogger = requestLogger
        self.url = originalURL
        self.originalURL = request.url ?? originalURL
        self.redirectHandler = redirectHandler
        self.request = request
        self.key = key
    }

    /// Whether the HTTP work was stopped because every caller cancelled.
    public var isTaskCancelled: Bool { state.withLock { $0.wasCancelled } }

    /// Whether callers are still waiting for this task.
    public var containsCallbacks: Bool { !callers.isEmpty }

    /// The body bytes received so far: while the body downloads, what has arrived; then the whole body until the
    /// delegate's `imageDownloader(_:didDownload:with:)` has returned. Empty before the body starts and once the
    /// body has gone on to decoding.
    ///
    /// - Note: Kingfisher's task keeps the body for as long as the task lives. This one lets it go when decoding
    ///   starts, so that a ``DownloadTask`` kept by a caller never keeps a downloaded body alive. Reading it while
    ///   the body downloads copies what has arrived.
    public var mutableData: Data {
        body.withLock { body in
            switch body {
            case .receiving(let collected): return collected?.snapshot() ?? Data()
            case .complete(let data): return data
            case .released: return Data()
            }
        }
    }

    /// Bytes received so far and the bytes expected (`-1` when unknown).
    public var progress: (received: Int64, expected: Int64) { state.withLock { ($0.received, $0.expected) } }

    /// Cancels the caller with `token`: it gets ``KingfisherError/RequestErrorReason/taskCancelled(task:token:)``.
    /// The request stops when no caller is left.
    public func cancel(token: CancelToken) {
        callers.first { $0.token == token }?.leave()
    }

    /// Cancels every caller and the request.
    public func forceCancel() {
        for caller in callers { caller.leave() }
    }

    /// The callers waiting now, in the order their processings joined: while the body downloads, and while it is
    /// processed.
    var callers: [DownloadWaiter] {
        processings.withLock { $0.compactMap(\.run) }.flatMap { $0.guests(as: DownloadWaiter.self) }
    }

    /// The highest `downloadPriority` of the callers: where the download waits in the queue for a connection.
    var downloadPriority: Float {
        callers.map(\.options.downloadPriority).max() ?? KingfisherParsedOptionsInfo(nil).downloadPriority
    }

    /// A processing of the body joined the download: its callers are the task's too.
    func follow(_ processing: ImageDownloader.BodyProcessingRun) {
        processings.withLock { followed in
            followed.removeAll { $0.run == nil }
            guard !followed.contains(where: { $0.run === processing }) else { return }
            followed.append(WeakProcessing(run: processing))
        }
    }

    /// Records progress and returns the callers to tell.
    func recordProgress(received: Int64, expected: Int64) -> [DownloadWaiter] {
        state.withLock { $0.progress(received: received, expected: expected) }
        return callers
    }

    private struct WeakProcessing {
        weak var run: ImageDownloader.BodyProcessingRun?
    }
}

extension SessionDataTask {
    /// Where the body of a task is.
    enum Body: ~Copyable {
        /// Downloading: the pieces so far (`nil` before the first).
        case receiving(CollectedBody?)
        /// Downloaded, not yet handed to decoding.
        case complete(Data)
        /// Handed to decoding (or failed): the task holds no bytes.
        case released
    }

    /// Appends a piece of the body; returns the bytes received so far.
    func receive(_ chunk: ByteBuffer, expectedLength: Int64) -> Int {
        receive(expectedLength: expectedLength) { $0.append(chunk) }
    }

    /// Starts the body with the bytes kept from a transfer that was cut off (the request asked for the rest).
    func receive(resumedStart start: Data, expectedLength: Int64) -> Int {
        receive(expectedLength: expectedLength) { $0.append(start) }
    }

    private func receive(expectedLength: Int64, _ append: (inout CollectedBody) -> Void) -> Int {
        body.withLock { body in
            switch consume body {
            case .receiving(var collected):
                var current =
                    collected.take()
                    ?? CollectedBody(expectedLength: expectedLength, buffers: bodyBuffers)
                append(&current)
                let count = current.count
                body = .receiving(current)
                return count
            case .complete(let data):
                body = .complete(data)
                return data.count
            case .released:
                body = .released
                return 0
            }
        }
    }

    /// The whole body, taken once at the end of the download; the task keeps it until ``releaseBody()``.
    func takeBody() -> Data {
        body.withLock { body in
            switch consume body {
            case .receiving(var collected):
                let data = collected.take()?.takeData() ?? Data()
                body = .complete(data)
                return data
            case .complete(let data):
                body = .complete(data)
                return data
            case .released:
                body = .released
                return Data()
            }
        }
    }

    /// Lets the body go once the delegate has seen it.
    func releaseBody() {
        body.withLock { $0 = .released }
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
