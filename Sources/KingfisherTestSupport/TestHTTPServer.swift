public import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import KingfisherLocking

/// A real HTTP/1.1 server on `127.0.0.1` with a port chosen by the OS, serving bytes per path with switches for
/// the faults a downloader must survive: status codes, headers, a delay before the head, slow, trickling or chunked
/// bodies, redirects, a connection closed mid-body or silently after a keep-alive response, a lying
/// `Content-Length`, and responses held until released.
///
/// It counts requests per path and the largest number answered at once, so tests can assert what reached the
/// wire. It runs on NIO's shared event loop group and starts no threads of its own.
///
/// ```swift
/// let server = try await TestHTTPServer.start()
/// server.route("/a.png", .ok(pngData, contentType: "image/png"))
/// let url = server.url("/a.png")
/// ...
/// try await server.shutdown()
/// ```
public final class TestHTTPServer: Sendable {
    struct Waiter {
        let path: String?
        let count: Int
        let continuation: CheckedContinuation<Void, Never>
    }

    struct State {
        var routes: [String: [Route]] = [:]
        var responders: [String: @Sendable (_ headers: [(String, String)]) -> Route] = [:]
        var hits: [String: Int] = [:]
        var lastHeaders: [String: [(String, String)]] = [:]
        var log: [String] = []
        var inFlight = 0
        var abandoned: [String: Int] = [:]
        var maxInFlight = 0
        var held: [String: [@Sendable () -> Void]] = [:]
        var released: Set<String> = []
        var waiters: [Waiter] = []
        var connections: [ObjectIdentifier: any Channel] = [:]
        var isShutDown = false
    }

    let state = Locked(State())
    private let channel: any Channel

    /// The port the server listens on.
    public let port: Int
    /// The loopback address it listens on.
    public let host: String

    private init(channel: any Channel, host: String, port: Int) {
        self.channel = channel
        self.host = host
        self.port = port
    }

    /// Starts a server on `host` (a loopback address, `127.0.0.1` by default) and `port` (ephemeral by default);
    /// with `tls`, it speaks HTTPS with that certificate chain and key (PEM files).
    public static func start(
        tls: (certificateChain: URL, privateKey: URL)? = nil, host: String = "127.0.0.1", port requested: Int = 0
    ) async throws -> TestHTTPServer {
        precondition(host.hasPrefix("127."), "test servers listen on loopback only")
        let box = Locked<TestHTTPServer?>(nil)
        let sslContext = try tls.map { files in
            let chain = try NIOSSLCertificate.fromPEMFile(files.certificateChain.path).map {
                NIOSSLCertificateSource.certificate($0)
            }
            let key = try NIOSSLPrivateKey(file: files.privateKey.path, format: .pem)
            return try NIOSSLContext(
                configuration: .makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key)))
        }
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    guard let server = box.withLock({ $0 }) else { throw ChannelError.ioOnClosedChannel }
                    if let sslContext {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
                    }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(RequestHandler(server: server))
                    server.connectionOpened(channel)
                }
            }
            .bind(host: host, port: requested)
            .get()
        guard let port = channel.localAddress?.port else {
            try? await channel.close()
            throw ChannelError.unknownLocalAddress
        }
        let server = TestHTTPServer(channel: channel, host: host, port: port)
        box.withLock { $0 = server }
        return server
    }

    /// `http://<host>:<port>`.
    public var baseURL: URL { URL(string: "http://\(host):\(port)")! }

    /// The URL of `path` (which starts with `/`) on this server.
    public func url(_ path: String) -> URL { URL(string: "http://\(host):\(port)\(path)")! }

    /// Serves `route` for every request to `path` (the query string is ignored).
    public func route(_ path: String, _ route: Route) {
        state.withLock {
            $0.responders[path] = nil
            $0.routes[path] = [route]
        }
    }

    /// Serves `routes[n]` for the n-th request to `path`, then the last one for every later request.
    public func route(_ path: String, sequence routes: [Route]) {
        precondition(!routes.isEmpty, "a sequence needs at least one route")
        state.withLock { $0.routes[path] = routes }
    }

    /// Answers each request to `path` with the route `responder` makes from the request's header fields (an
    /// origin that looks at `If-None-Match`, say). Replaces any fixed route of the path.
    public func route(_ path: String, responder: @escaping @Sendable (_ headers: [(String, String)]) -> Route) {
        state.withLock {
            $0.routes[path] = nil
            $0.responders[path] = responder
        }
    }

    /// Requests that reached the server for `path`.
    public func hits(_ path: String) -> Int { state.withLock { $0.hits[path, default: 0] } }

    /// The headers of the last request for `path`, in order; `nil` if none arrived.
    public func lastRequestHeaders(_ path: String) -> [(String, String)]? {
        state.withLock { $0.lastHeaders[path] }
    }

    /// Requests that reached the server, all paths.
    public var totalHits: Int { state.withLock { $0.log.count } }

    /// Paths in the order their requests arrived.
    public var requestLog: [String] { state.withLock { $0.log } }

    /// The largest number of requests being answered at the same time so far.
    public var maxInFlight: Int { state.withLock { $0.maxInFlight } }

    /// Requests being answered now.
    public var inFlight: Int { state.withLock { $0.inFlight } }

    /// How many requests for `path` lost their connection before their response ended: the client gave up (a
    /// cancelled download closes its connection), or the server shut down.
    public func abandoned(_ path: String) -> Int { state.withLock { $0.abandoned[path, default: 0] } }

    /// Sends the responses held for `path` (a route with `held: true`); later requests to it are not held.
    public func release(_ path: String) {
        let blocks = state.withLock { state in
            state.released.insert(path)
            return state.held.removeValue(forKey: path) ?? []
        }
        for block in blocks { block() }
    }

    /// Returns once at least `count` requests for `path` (any path when `nil`) have arrived.
    public func waitForRequests(_ path: String? = nil, count: Int = 1) async {
        await withSanitizedCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state in
                if Self.count(of: path, in: state) >= count { return true }
                state.waiters.append(Waiter(path: path, count: count, continuation: continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Closes the listening socket and every open connection.
    public func shutdown() async throws {
        let (connections, waiters) = state.withLock { state in
            state.isShutDown = true
            let result = (Array(state.connections.values), state.waiters)
            state.connections = [:]
            state.waiters = []
            state.held = [:]
            return result
        }
        for waiter in waiters { waiter.continuation.resume() }
        for connection in connections { try? await connection.close() }
        try await channel.close()
    }

    private static func count(of path: String?, in state: State) -> Int {
        guard let path else { return state.log.count }
        return state.hits[path, default: 0]
    }

    // MARK: Bookkeeping called by the handler

    func connectionOpened(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        let accepted = state.withLock { state in
            guard !state.isShutDown else { return false }
            state.connections[id] = channel
            return true
        }
        guard accepted else {
            channel.close(promise: nil)
            return
        }
        channel.closeFuture.whenComplete { [weak self] _ in
            _ = self?.state.withLock { $0.connections.removeValue(forKey: id) }
        }
    }

    /// Records a request and returns its route (`nil` for 404) and whether it must wait for a release.
    func requestArrived(path: String, headers: [(String, String)]) -> (route: Route?, hold: Bool) {
        let (route, ready) = state.withLock { state -> (Route?, [CheckedContinuation<Void, Never>]) in
            state.lastHeaders[path] = headers
            let hit = state.hits[path, default: 0]
            state.hits[path] = hit + 1
            state.log.append(path)
            state.inFlight += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
            var ready: [CheckedContinuation<Void, Never>] = []
            var waiting: [Waiter] = []
            for waiter in state.waiters {
                if Self.count(of: waiter.path, in: state) >= waiter.count {
                    ready.append(waiter.continuation)
                } else {
                    waiting.append(waiter)
                }
            }
            state.waiters = waiting
            let responder = state.responders[path]
            let route = state.routes[path].map { $0[min(hit, $0.count - 1)] }
            return (route ?? responder.map { $0(headers) }, ready)
        }
        for continuation in ready { continuation.resume() }
        let hold = route?.held == true && !state.withLock { $0.released.contains(path) }
        return (route, hold)
    }

    /// Parks `block` until ``release(_:)``; runs it at once if the path was released meanwhile.
    func hold(path: String, _ block: @escaping @Sendable () -> Void) {
        let parked = state.withLock { state in
            guard !state.released.contains(path), !state.isShutDown else { return false }
            state.held[path, default: []].append(block)
            return true
        }
        if !parked { block() }
    }

    func responseAbandoned(path: String) {
        state.withLock { $0.abandoned[path, default: 0] += 1 }
    }

    func responseEnded() {
        state.withLock { $0.inFlight -= 1 }
    }
}

// A failed `#expect` that mentions a server describes it, and reflection would walk into SwiftNIO's event loop and read
// its task queue without the loop's lock (ThreadSanitizer reported it): the server describes itself by its address.
extension TestHTTPServer: CustomStringConvertible, CustomReflectable {
    public var description: String { "TestHTTPServer(\(host):\(port))" }
    public var customMirror: Mirror { Mirror(self, children: ["port": port]) }
}
