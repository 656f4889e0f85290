import AsyncHTTPClient
import Foundation
import Hummingbird
import Kingfisher
import KingfisherTestSupport
import Logging
import NIOCore
import NIOHTTP1
import Prometheus
import ServiceLifecycle

@testable import KingfisherServer

/// A real `ImageServer` on Hummingbird on an ephemeral loopback port, a loopback origin it may fetch from (allowed
/// unless a test says otherwise), a fresh cache directory, and an HTTP client to ask it.
final class ServerHarness: Sendable {
    let origin: TestHTTPServer
    let server: ImageServer
    let registry: PrometheusCollectorRegistry
    let port: Int
    let cacheDirectory: URL
    let client: HTTPClient
    private let group: ServiceGroup
    private let running: Task<Void, any Error>

    /// The origin's host and port as a thumbor image part (`127.0.0.1:PORT/path`).
    func originImage(_ path: String) -> String { "127.0.0.1:\(origin.port)\(path)" }

    /// - Parameter sourceGuard: the server's SSRF guard, made from its configuration; the real one by default.
    static func start(
        allowOrigin: Bool = true, sourceGuard: ((ImageServer.Configuration) -> SourceGuard)? = nil,
        _ configure: (inout ImageServer.Configuration) -> Void = { _ in }
    ) async throws -> ServerHarness {
        let origin = try await TestHTTPServer.start()
        var configuration = ImageServer.Configuration(securityKey: "secret", allowsUnsafeURLs: true)
        if allowOrigin { configuration.allowedSources = [.init(host: "127.0.0.1", port: origin.port)] }
        configure(&configuration)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "kf-serve-test-\(UUID().uuidString)")
        let cache = try ImageCache(name: "test", cacheDirectoryURL: directory) { base, _ in base }
        let registry = PrometheusCollectorRegistry()
        let server = ImageServer(
            configuration: configuration, cache: cache, logger: nil,
            metricsFactory: PrometheusMetricsFactory(registry: registry),
            sourceGuard: sourceGuard?(configuration)
                ?? SourceGuard(
                    allowedSources: configuration.allowedSources, resolutionTimeout: configuration.originTimeout))
        let router = Router()
        server.addRoutes(to: router, metricsRegistry: registry)
        let (portStream, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: app)],
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })))
        let running = Task { try await group.run() }
        var port = 0
        for await value in portStream { port = value }
        var clientConfiguration = HTTPClient.Configuration()
        clientConfiguration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 256
        clientConfiguration.timeout = .init(connect: .seconds(5), read: .seconds(30))
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
        return ServerHarness(
            origin: origin, server: server, registry: registry, port: port, cacheDirectory: directory,
            client: client, group: group, running: running)
    }

    private init(
        origin: TestHTTPServer, server: ImageServer, registry: PrometheusCollectorRegistry, port: Int,
        cacheDirectory: URL, client: HTTPClient, group: ServiceGroup, running: Task<Void, any Error>
    ) {
        self.origin = origin
        self.server = server
        self.registry = registry
        self.port = port
        self.cacheDirectory = cacheDirectory
        self.client = client
        self.group = group
        self.running = running
    }

    struct Answer: Sendable {
        let status: Int
        let headers: HTTPHeaders
        let body: Data

        var text: String { String(decoding: body, as: UTF8.self) }
        func header(_ name: String) -> String? { headers.first(name: name) }
    }

    /// Sends `path` (a thumbor path, or `/healthz`...) and collects the answer.
    func request(_ path: String, method: HTTPMethod = .GET, headers: [(String, String)] = []) async throws -> Answer {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await client.execute(request, timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 64 << 20)
        return Answer(status: Int(response.status.code), headers: response.headers, body: Data(body.readableBytesView))
    }

    /// `/unsafe/` + `options` + the origin image at `path`.
    func unsafe(_ options: String, _ path: String) -> String {
        "/unsafe/" + (options.isEmpty ? "" : options + "/") + originImage(path)
    }

    /// The path signed with the harness' key.
    func signed(_ signedPart: String) -> String {
        "/" + ThumborSignature.sign(signedPart, key: "secret") + "/" + signedPart
    }

    func stop() async {
        try? await client.shutdown()
        await group.triggerGracefulShutdown()
        _ = try? await running.value
        try? await origin.shutdown()
        try? FileManager.default.removeItem(at: cacheDirectory)
    }
}

/// Runs `body` with a started ``ServerHarness`` (configured by `configure`), and stops it whether `body` throws or
/// not.
func withHarness(
    allowOrigin: Bool = true, _ configure: (inout ImageServer.Configuration) -> Void = { _ in },
    _ body: (ServerHarness) async throws -> Void
) async throws {
    let harness = try await ServerHarness.start(allowOrigin: allowOrigin, configure)
    do {
        try await body(harness)
    } catch {
        await harness.stop()
        throw error
    }
    await harness.stop()
}
