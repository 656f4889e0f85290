import AsyncHTTPClient
import Foundation
import KingfisherLocking
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ImageDownloader {
    /// The body and final response of one HTTP task.
    struct Fetched: Sendable {
        var data: Data
        let response: HTTPURLResponse
        let metrics: NetworkMetrics
        /// When the request was sent and its response head arrived, for the age of the response (RFC 9111).
        var requestTime = Date()
        var responseTime = Date()
        /// A `304 Not Modified` to a conditional request: no body, the cached entry is still good.
        var isNotModified = false

        var responseHeaders: ResponseHeaders {
            var fields: [String: String] = [:]
            for case (let name as String, let value as String) in response.allHeaderFields { fields[name] = value }
            return ResponseHeaders(fields: fields, requestTime: requestTime, responseTime: responseTime)
        }
    }

    /// Sends the task's request, follows redirects, validates the response and streams the body within the
    /// size limit. Returns the last response seen as well, for the delegate. `trace` follows the URL being fetched
    /// and the last response, for the total deadline.
    func fetchHops(_ task: SessionDataTask, trace: FetchTrace) async -> (
        Result<Fetched, KingfisherError>, HTTPURLResponse?
    ) {
        let start = ContinuousClock.now
        let requestTime = Date()
        let timeout = downloadTimeout
        var request = task.request
        var chain = [task.request.url ?? task.url]
        var lastResponse: HTTPURLResponse?
        var resuming = task.keptStart()
        if let resuming { request = Self.adding(resuming.rangeHeaders, to: request) }
        let route = HopRoute()
        defer { route.release(to: pinnedClients) }
        do {
            while true {
                let url = request.url ?? task.url
                trace.fetching(url)
                route.address = try await connectionAddressPolicy?.address(toConnectFor: url)
                let response = try await executeResendingOnClosedConnection(
                    signedForObjectStorage(request, of: task), timeout: timeout, route: route,
                    logger: task.requestLogger)
                let httpResponse = HTTPURLResponse(url: url, head: response)
                lastResponse = httpResponse
                trace.received(httpResponse)
                if let next = try await redirect(
                    from: response, httpResponse: httpResponse, request: request, task: task, chain: &chain)
                {
                    request = next
                    continue
                }
                if let kept = resuming, response.status == .rangeNotSatisfiable {
                    // The kept start no longer fits the body: ask for all of it.
                    _ = try? await response.body.collect(upTo: 64 * 1024)
                    task.forgetKeptStart()
                    resuming = nil
                    request = Self.removing(kept.rangeHeaders, from: request)
                    continue
                }
                let headTime = ContinuousClock.now
                let responseTime = Date()
                do {
                    try await validate(response, httpResponse, of: task)
                } catch {
                    // A delegate that refuses the 206 (or its status) would refuse every later try as well.
                    if resuming != nil { task.forgetKeptStart() }
                    throw error
                }
                let notModified = try await isNotModified(response, httpResponse, request: request)
                let continued = try continuation(of: resuming, by: response, httpResponse, request: request, task: task)
                let data =
                    notModified
                    ? Data()
                    : try await readBody(response.body, response: response, url: url, task: task, continuing: continued)
                // Whole now: the kept start is no longer needed (it stays until here in case the process dies).
                if continued != nil { task.forgetKeptStart() }
                let metrics = NetworkMetrics(
                    totalRequestDuration: (ContinuousClock.now - start).timeInterval,
                    timeToResponseHead: (headTime - start).timeInterval,
                    redirectCount: chain.count - 1,
                    httpStatusCode: Int(response.status.code),
                    receivedBytes: data.count - (continued?.bytes.count ?? 0)
                )
                let fetched = Fetched(
                    data: data, response: httpResponse, metrics: metrics, requestTime: requestTime,
                    responseTime: responseTime, isNotModified: notModified)
                return (.success(fetched), httpResponse)
            }
        } catch let error as KingfisherError {
            return (.failure(error), lastResponse)
        } catch {
            let url = request.url ?? task.url
            return (.failure(Self.transportError(error, url: url, timeout: timeout)), lastResponse)
        }
    }

    /// Sends `request`, on a connection of its own when `onFreshConnection` (else on one from the pool), to the
    /// address `route` names when it names one.
    func execute(
        _ request: URLRequest, timeout: TimeInterval, onFreshConnection: Bool = false, route: HopRoute,
        logger: Logger?
    ) async throws -> HTTPClientResponse {
        let url = request.url ?? URL(fileURLWithPath: "/")
        var clientRequest = HTTPClientRequest(url: url.absoluteString)
        clientRequest.method = HTTPMethod(rawValue: request.httpMethod ?? "GET")
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            clientRequest.headers.add(name: name, value: value)
        }
        if let body = request.httpBody {
            clientRequest.body = .bytes(ByteBuffer(bytes: body))
        }
        switch await serverTrust(for: url) {
        case .verify: break
        case .trust:
            var tls = configuration.httpClient.tlsConfiguration ?? .makeClientConfiguration()
            tls.certificateVerification = .none
            clientRequest.tlsConfiguration = tls
        case .cancel:
            throw KingfisherError.responseError(reason: .URLSessionError(error: URLError(.cancelled)))
        }
        let milliseconds = Int64(max(0.001, min(timeout, 86_400)) * 1000)
        let client = try self.client(for: url, onFreshConnection: onFreshConnection, route: route)
        // AsyncHTTPClient hands the response (and its body stream, made on the event loop) over by resuming a
        // continuation, often before this task reached its await: make that hand-off visible to ThreadSanitizer.
        defer { ThreadSanitizer.acquireAfterContinuation() }
        return try await OriginRequestSpan.run(&clientRequest, url: url) { sent in
            try await client.execute(sent, timeout: .milliseconds(milliseconds), logger: logger)
        }
    }

    /// The client that connects as `route` says: a pinned one (held by `route` until the download ends) when it
    /// names an address for a host name, else the pooled or the fresh-connection client.
    private func client(for url: URL, onFreshConnection: Bool, route: HopRoute) throws -> HTTPClient {
        guard let address = route.address, let host = url.host, !host.isEmpty, HostName.bare(host) != address else {
            return onFreshConnection ? freshConnectionClient : client
        }
        let lease = try pinnedClients.lease(.init(host: host, address: address, freshConnections: onFreshConnection))
        route.hold(lease)
        return lease.client
    }

    /// The next request when `response` is a redirect to follow; `nil` when it is the final response.
    private func redirect(
        from response: HTTPClientResponse, httpResponse: HTTPURLResponse, request: URLRequest,
        task: SessionDataTask, chain: inout [URL]
    ) async throws -> URLRequest? {
        guard [301, 302, 303, 307, 308].contains(response.status.code),
            let location = response.headers.first(name: "Location"),
            let target = URL(string: location, relativeTo: httpResponse.url)?.absoluteURL
        else { return nil }
        var next = request
        next.url = target
        if response.status.code == 303 || (request.httpMethod ?? "GET") == "POST" && response.status.code < 303 {
            next.httpMethod = "GET"
            next.httpBody = nil
        }
        guard ["http", "https"].contains(target.scheme?.lowercased() ?? "") else {
            // Never follow a server to file:// or another scheme.
            throw KingfisherError.requestError(reason: .invalidURL(request: next))
        }
        let isLoop = chain.contains(target)
        chain.append(target)
        if isLoop || chain.count - 1 > configuration.maximumRedirects {
            throw KingfisherError.responseError(
                reason: .tooManyRedirects(urls: chain, limit: configuration.maximumRedirects))
        }
        if let handler = task.redirectHandler {
            guard
                let handled = await handler.handleHTTPRedirection(
                    for: task, response: httpResponse, newRequest: next)
            else { return nil }
            next = handled
        }
        // Drain the small redirect body so the connection can be reused; a huge one just closes it.
        _ = try? await response.body.collect(upTo: 64 * 1024)
        return next
    }

    private func validate(
        _ response: HTTPClientResponse, _ httpResponse: HTTPURLResponse, of task: SessionDataTask
    ) async throws {
        if let delegate, await delegate.imageDownloader(self, didReceive: httpResponse) == .cancel {
            throw KingfisherError.responseError(reason: .cancelledByDelegate(response: httpResponse))
        }
        let code = Int(response.status.code)
        let valid = delegate?.isValidStatusCode(code, for: self) ?? (200..<400).contains(code)
        guard valid else {
            // Read a small error body so the connection can be reused; a large one just closes it.
            let body = try? await response.body.collect(upTo: 64 * 1024)
            if let refusal = Self.objectStorageError(body, status: code, of: task) { throw refusal }
            throw KingfisherError.responseError(reason: .invalidHTTPStatusCode(response: httpResponse))
        }
        let limit = configuration.maximumResponseSize
        if let declared = response.headers.first(name: "Content-Length").flatMap(Int64.init), declared > limit {
            throw KingfisherError.responseError(
                reason: .responseTooLarge(
                    url: httpResponse.url ?? URL(fileURLWithPath: "/"), limit: limit, declared: declared))
        }
    }

    /// Whether the response is a `304 Not Modified` to a conditional request (its small body drained). A 304 to a
    /// request that was not conditional is an error: there is nothing it could refer to.
    private func isNotModified(
        _ response: HTTPClientResponse, _ httpResponse: HTTPURLResponse, request: URLRequest
    ) async throws -> Bool {
        guard response.status == .notModified else { return false }
        _ = try? await response.body.collect(upTo: 64 * 1024)
        let conditional = ["If-None-Match", "If-Modified-Since"].contains {
            request.value(forHTTPHeaderField: $0) != nil
        }
        guard conditional else {
            throw KingfisherError.responseError(reason: .invalidHTTPStatusCode(response: httpResponse))
        }
        return true
    }

    /// Reads the body into the task, after the kept start it is `continuing` (a `206` for the rest). A body cut
    /// off on the way is kept for the next try when it could be resumed (see ``PartialDownload``).
    private func readBody(
        _ body: HTTPClientResponse.Body, response: HTTPClientResponse, url: URL, task: SessionDataTask,
        continuing kept: PartialDownload?
    ) async throws -> Data {
        let limit = configuration.maximumResponseSize
        let expected =
            kept?.identity.totalLength ?? response.headers.first(name: "Content-Length").flatMap(Int64.init) ?? -1
        var count = 0
        if let kept { count = task.receive(resumedStart: kept.bytes, expectedLength: expected) }
        let previewer = ProgressivePreviewer(callers: { task.callers }, received: { task.mutableData })
        defer { previewer?.finish() }
        do {
            for try await chunk in body {
                guard count + chunk.readableBytes <= limit else {
                    throw KingfisherError.responseError(
                        reason: .responseTooLarge(url: url, limit: limit, declared: nil))
                }
                count = task.receive(chunk, expectedLength: expected)
                let received = Int64(count)
                let callers = task.recordProgress(received: received, expected: expected)
                for caller in callers { caller.reportProgress(received: received, expected: expected) }
                previewer?.receive(chunk, callers: callers)
            }
        } catch {
            // Cut off (not refused by a limit): keep what arrived if the rest can be asked for.
            if !(error is KingfisherError), task.partialDownloads != nil,
                let identity = kept?.identity ?? PartialDownload.identity(of: response)
            {
                task.keepReceivedBody(as: identity)
            }
            throw error
        }
        return task.takeBody()
    }

    /// The kept start that `response` continues, or `nil` when it is a whole body (the kept start, if any, is
    /// dropped then: the representation changed, or the server ignored the range). A `206` that does not continue
    /// the kept start exactly (another range, length or validator), or a `206` to a request that asked for no
    /// range, is an error: its bytes are used for nothing, and the kept start is dropped.
    private func continuation(
        of kept: PartialDownload?, by response: HTTPClientResponse, _ httpResponse: HTTPURLResponse,
        request: URLRequest, task: SessionDataTask
    ) throws -> PartialDownload? {
        guard response.status == .partialContent else {
            if kept != nil { task.forgetKeptStart() }
            return nil
        }
        if let kept {
            guard kept.isContinued(by: response) else {
                task.forgetKeptStart()
                throw KingfisherError.responseError(reason: .invalidHTTPStatusCode(response: httpResponse))
            }
            return kept
        }
        // A range the caller's request modifier asked for is the caller's business.
        guard request.value(forHTTPHeaderField: "Range") != nil else {
            throw KingfisherError.responseError(reason: .invalidHTTPStatusCode(response: httpResponse))
        }
        return nil
    }

    /// Maps the HTTP client's errors: timeouts become ``KingfisherError/ResponseErrorReason/requestTimedOut(url:timeout:)``,
    /// everything else ``KingfisherError/ResponseErrorReason/URLSessionError(error:)``.
    static func transportError(_ error: any Error, url: URL, timeout: TimeInterval) -> KingfisherError {
        if let clientError = error as? HTTPClientError,
            clientError == .deadlineExceeded || clientError == .readTimeout
        {
            return .responseError(reason: .requestTimedOut(url: url, timeout: timeout))
        }
        return .responseError(reason: .URLSessionError(error: error))
    }
}

/// Where one download's hops connect: the address its ``ConnectionAddressPolicy`` chose for the current hop, and
/// the pinned clients it holds until its last response has been read.
final class HopRoute: Sendable {
    private let state = Locked((address: String?.none, leases: [PinnedClients.Lease]()))

    var address: String? {
        get { state.withLock { $0.address } }
        set { state.withLock { $0.address = newValue } }
    }

    func hold(_ lease: PinnedClients.Lease) {
        state.withLock { $0.leases.append(lease) }
    }

    /// Gives every held client back to `clients`.
    func release(to clients: PinnedClients) {
        let leases = state.withLock { state in
            defer { state.leases = [] }
            return state.leases
        }
        for lease in leases { clients.release(lease) }
    }
}

extension HTTPURLResponse {
    /// A Foundation response carrying the status, version and headers of an AsyncHTTPClient response
    /// (repeated headers joined with `", "`).
    convenience init(url: URL, head: HTTPClientResponse) {
        var fields: [String: String] = [:]
        for (name, value) in head.headers {
            if let existing = fields[name] {
                fields[name] = existing + ", " + value
            } else {
                fields[name] = value
            }
        }
        // swift-corelibs-foundation's initializer never returns nil.
        self.init(
            url: url, statusCode: Int(head.status.code),
            httpVersion: "HTTP/\(head.version.major).\(head.version.minor)", headerFields: fields)!
    }
}

extension Duration {
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
