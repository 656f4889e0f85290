import ArgumentParser
import Foundation
import Hummingbird
import KfCommandKit
import Kingfisher
import KingfisherLocking
import KingfisherServer
import Logging
import Metrics
import NIOCore
import Prometheus
import ServiceLifecycle
import UnixSignals

/// `kf serve`: the thumbor-compatible image server, a thin command around `ImageServer`.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve thumbor URLs: fetch, process and cache images over HTTP.",
        discussion: """
            URLs are thumbor's: /SIGNATURE/[trim/][AxB:CxD/][fit-in/][-]WxH/[halign/valign/][smart/][filters:...]/IMAGE, \
            signed with --security-key (HMAC-SHA1, as libthumbor signs them), or /unsafe/... with --unsafe. \
            /healthz answers ok; /metrics gives Prometheus text. SIGTERM or SIGINT stops accepting connections and \
            lets requests in flight finish (up to --shutdown-timeout). Every option can also be set with an \
            environment variable KF_SERVE_<NAME> (KF_SERVE_PORT, KF_SERVE_SECURITY_KEY, KF_SERVE_ALLOW_SOURCE as a \
            comma-separated list, KF_SERVE_AUTO_WEBP=1, ...); a flag wins over its variable.
            """)

    @Option(help: "The port to listen on (0: any free port; the address is printed). Default 8888.")
    var port: Int?

    @Option(help: ArgumentHelp("The address to listen on. Default 127.0.0.1.", valueName: "ADDR"))
    var host: String?

    @Option(help: ArgumentHelp("The key URLs are signed with.", valueName: "KEY"))
    var securityKey: String?

    @Flag(help: "Serve /unsafe/ URLs (unsigned). Only where the server is not reachable by strangers.")
    var unsafe = false

    @Option(
        name: .customLong("allow-source"),
        help: ArgumentHelp(
            "Fetch only from this host (any port, or only PORT); repeat for more. Also the one way to fetch from a "
                + "loopback or private address.",
            valueName: "HOST[:PORT]"))
    var allowSources: [String] = []

    @Option(
        help: ArgumentHelp(
            "The cache directory, for originals and results; instances may share one. Default: "
                + "$XDG_CACHE_HOME/kf/serve, else ~/.cache/kf/serve.", valueName: "DIR"))
    var cacheDir: String?

    @Option(
        help: ArgumentHelp(
            "Read images named by a path from this directory; a path that is no file there but starts with a host "
                + "(127.0.0.1:8080/a.jpg) is fetched over http:// (thumbor's file_loader_http_fallback).",
            valueName: "DIR"))
    var root: String?

    @Flag(help: "With --root, answer 404 for a path that is no file there instead of fetching it (file_loader).")
    var rootOnly = false

    @Option(
        name: .customLong("s3-bucket"),
        help: ArgumentHelp(
            "Read images named by a path from this S3 bucket (the path is the key); repeat for more (the path's "
                + "first part then names the bucket, one of these). Endpoint, region and keys come from the AWS_* "
                + "variables or ~/.aws profiles; the endpoint passes the --allow-source check as any origin.",
            valueName: "BUCKET"))
    var s3Buckets: [String] = []

    @Option(help: ArgumentHelp("With --s3-bucket, a prefix put before every key.", valueName: "PREFIX"))
    var s3KeyPrefix: String?

    @Option(
        help: ArgumentHelp(
            "Keep made results in this S3 bucket too, where every instance finds them (the local cache stays in "
                + "front).", valueName: "s3://BUCKET[/PREFIX]"))
    var resultStore: String?

    @Flag(help: "Answer WebP to clients that accept it when the URL names no format.")
    var autoWebp = false

    @Flag(help: "Answer AVIF to clients that accept it when the URL names no format.")
    var autoAvif = false

    @Option(help: ArgumentHelp("Cache-Control max-age of results. Default 86400.", valueName: "SECONDS"))
    var maxAge: Int?

    @Option(help: ArgumentHelp("The longest an origin may take. Default 10.", valueName: "SECONDS"))
    var originTimeout: Double?

    @Option(help: ArgumentHelp("The largest source accepted. Default 52428800.", valueName: "BYTES"))
    var maxSourceBytes: Int?

    @Option(help: ArgumentHelp("The most pixels a source may have. Default 100000000.", valueName: "PIXELS"))
    var maxSourcePixels: Int?

    @Option(help: ArgumentHelp("The most pixels a result may have. Default 50000000.", valueName: "PIXELS"))
    var maxResultPixels: Int?

    @Option(help: ArgumentHelp("Results made at once. Default: twice the cores.", valueName: "N"))
    var maxActive: Int?

    @Option(help: ArgumentHelp("Requests waiting beyond those (then 503). Default 256.", valueName: "N"))
    var maxQueued: Int?

    @Option(help: ArgumentHelp("How long requests in flight may take after SIGTERM. Default 20.", valueName: "SECONDS"))
    var shutdownTimeout: Double?

    @Option(
        help: ArgumentHelp(
            "Close a connection that sends nothing for this long: idle between requests, or stuck in a request's "
                + "headers or body. Default 30.", valueName: "SECONDS"))
    var idleTimeout: Double?

    @Option(
        help: ArgumentHelp(
            "Close a connection whose request head has not arrived whole this long after its first byte, however "
                + "steadily it trickles in. Default 10.", valueName: "SECONDS"))
    var headerTimeout: Double?

    @Option(
        help: ArgumentHelp(
            "Connections open at once; at the limit a new one closes the longest idle one (503 when none is "
                + "idle). Default: 10000, or less when the open-file limit is lower.", valueName: "N"))
    var maxConnections: Int?

    @Option(
        help: ArgumentHelp(
            "Log from this level up to stderr (access lines are info). Default info.", valueName: "LEVEL"))
    var logLevel: String?

    /// The S3 loader and the result store, and the AWS settings they use (read now: a broken profile stops the
    /// start, not the first request).
    private func configureObjectStorage(
        _ configuration: inout ImageServer.Configuration, environment: ServeEnvironment
    ) throws {
        let buckets = s3Buckets.isEmpty ? environment.list("S3_BUCKET") : s3Buckets
        if !buckets.isEmpty {
            guard configuration.rootDirectory == nil else {
                throw ValidationError("--s3-bucket and --root both name where paths are read from: choose one.")
            }
            for bucket in buckets where S3Location(bucket: bucket, key: "k") == nil {
                throw ValidationError("--s3-bucket \(bucket): not a bucket name.")
            }
            var prefix = s3KeyPrefix ?? environment.string("S3_KEY_PREFIX") ?? ""
            while prefix.hasSuffix("/") { prefix.removeLast() }
            configuration.s3Loader = ImageServer.S3Loader(buckets: buckets, keyPrefix: prefix)
        }
        if let store = resultStore ?? environment.string("RESULT_STORE") {
            guard let place = ImageServer.ResultStore(store) else {
                throw ValidationError("--result-store \(store): expected s3://BUCKET or s3://BUCKET/PREFIX.")
            }
            configuration.resultStore = place
        }
        guard configuration.s3Loader != nil || configuration.resultStore != nil else { return }
        do {
            configuration.objectStorage = try S3Configuration.fromEnvironment()
        } catch {
            throw ValidationError("the AWS settings for S3: \(error)")
        }
    }

    func run() async throws {
        let environment = ServeEnvironment(ProcessInfo.processInfo.environment)
        var configuration = ImageServer.Configuration()
        configuration.securityKey = securityKey ?? environment.string("SECURITY_KEY")
        configuration.allowsUnsafeURLs = unsafe || environment.flag("UNSAFE")
        guard configuration.securityKey != nil || configuration.allowsUnsafeURLs else {
            throw ValidationError("kf serve needs --security-key KEY (or KF_SERVE_SECURITY_KEY), or --unsafe.")
        }
        let sources = allowSources.isEmpty ? environment.list("ALLOW_SOURCE") : allowSources
        configuration.allowedSources = try sources.map { text in
            guard let source = ImageServer.AllowedSource(text) else {
                throw ValidationError("--allow-source \(text): expected HOST or HOST:PORT.")
            }
            return source
        }
        if let root = root ?? environment.string("ROOT") {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--root \(root): not a directory.")
            }
            configuration.rootDirectory = URL(fileURLWithPath: root, isDirectory: true)
        }
        configuration.rootFallsBackToHTTP = !(rootOnly || environment.flag("ROOT_ONLY"))
        try configureObjectStorage(&configuration, environment: environment)
        configuration.autoWebP = autoWebp || environment.flag("AUTO_WEBP")
        configuration.autoAVIF = autoAvif || environment.flag("AUTO_AVIF")
        if let value = try maxAge ?? environment.integer("MAX_AGE") { configuration.maxAge = max(0, value) }
        if let value = try originTimeout ?? environment.number("ORIGIN_TIMEOUT") {
            guard value > 0, value <= 3600 else { throw ValidationError("--origin-timeout must be 0 to 3600 seconds.") }
            configuration.originTimeout = value
        }
        if let value = try maxResultPixels ?? environment.integer("MAX_RESULT_PIXELS") {
            configuration.maximumResultPixels = max(1, value)
        }
        if let value = try maxSourceBytes ?? environment.integer("MAX_SOURCE_BYTES") {
            configuration.maximumSourceBytes = value
        }
        if let value = try maxSourcePixels ?? environment.integer("MAX_SOURCE_PIXELS") {
            configuration.engine.maximumPixelCount = value
        }
        if let value = try maxActive ?? environment.integer("MAX_ACTIVE") {
            configuration.maximumActiveRequests = max(1, value)
        }
        if let value = try maxQueued ?? environment.integer("MAX_QUEUED") {
            configuration.maximumQueuedRequests = max(0, value)
        }
        let port = try port ?? environment.integer("PORT") ?? 8888
        let host = host ?? environment.string("HOST") ?? "127.0.0.1"
        let shutdown = try shutdownTimeout ?? environment.number("SHUTDOWN_TIMEOUT") ?? 20
        guard shutdown >= 0, shutdown <= 3600 else {
            throw ValidationError("--shutdown-timeout must be 0 to 3600 seconds.")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535.") }
        let level = try Self.level(logLevel ?? environment.string("LOG_LEVEL") ?? "info")

        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        let logger = Logger(label: "kf.serve")
        let tracing: (any Service)?
        do {
            tracing = try ServeTracing.bootstrap(environment: ProcessInfo.processInfo.environment, logger: logger)
        } catch {
            throw ValidationError("the OTEL_* settings for traces: \(error)")
        }

        let cachePath = cacheDir ?? environment.string("CACHE_DIR")
        let cache = try CacheOptions.makeCache(
            at: cachePath.map { URL(fileURLWithPath: ($0 as NSString).expandingTildeInPath) }
                ?? CacheOptions.defaultServeDirectory)
        let server = ImageServer(configuration: configuration, cache: cache, logger: logger)
        let router = Router()
        router.middlewares.add(AccessLogMiddleware(logger: Logger(label: "kf.serve.access")))
        server.addRoutes(to: router, metricsRegistry: registry)
        var idle = 30.0
        if let value = try idleTimeout ?? environment.number("IDLE_TIMEOUT") {
            guard value > 0, value <= 3600 else { throw ValidationError("--idle-timeout must be 0 to 3600 seconds.") }
            idle = value
        }
        var header = 10.0
        if let value = try headerTimeout ?? environment.number("HEADER_TIMEOUT") {
            guard value > 0, value <= 3600 else {
                throw ValidationError("--header-timeout must be 0 to 3600 seconds.")
            }
            header = value
        }
        let descriptors = OpenFileLimit.raised()
        let connections = try maxConnections ?? environment.integer("MAX_CONNECTIONS")
        if let connections, connections < 1 { throw ValidationError("--max-connections must be at least 1.") }
        let connectionRegistry = ConnectionRegistry(limit: connections ?? OpenFileLimit.defaultConnections(descriptors))
        let listening = Locked(false)  // whether the address was taken: an error before that is the bind's
        let app = Application(
            router: router,
            server: .guardedHTTP1(
                configuration: .init(idleTimeout: .milliseconds(Int64(idle * 1000))), registry: connectionRegistry,
                headerTimeout: .milliseconds(Int64(header * 1000))),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "kf"),
            onServerRunning: { channel in
                listening.withLock { $0 = true }
                let address = channel.localAddress
                let shown = address.map { "http://\(host.contains(":") ? "[\(host)]" : host):\($0.port ?? port)" }
                Console.out("kf serve: listening on \(shown ?? "\(host):\(port)")")
            },
            logger: Logger(label: "kf.serve.http"))
        // The exporter first: services stop in reverse order, so it sends the server's last spans after it stops.
        let services =
            (tracing.map { [ServiceGroupConfiguration.ServiceConfiguration(service: $0)] } ?? [])
            + [.init(service: app)]
        var groupConfiguration = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = .milliseconds(Int64(max(0, shutdown) * 1000))
        do {
            try await ServiceGroup(configuration: groupConfiguration).run()
        } catch let error as IOError where !listening.withLock({ $0 }) {
            throw CommandFailure("cannot listen on \(host):\(port): " + Self.listenProblem(error))
        }
    }

    /// Why the server could not take its address, and what to do.
    private static func listenProblem(_ error: IOError) -> String {
        switch error.errnoCode {
        case EADDRINUSE: "the address is in use (another kf serve?); choose another --port, or stop that server"
        case EACCES: "permission denied (ports below 1024 need privileges); choose a --port above 1023"
        case EADDRNOTAVAIL: "no network interface of this machine has that address; check --host"
        default: String(cString: strerror(error.errnoCode))
        }
    }

    private static func level(_ name: String) throws -> Logger.Level {
        guard let level = Logger.Level(rawValue: name.lowercased()) else {
            throw ValidationError(
                "--log-level \(name): not one of trace, debug, info, notice, warning, error, critical.")
        }
        return level
    }
}

/// `KF_SERVE_*` variables, read with the same checks as the flags.
struct ServeEnvironment {
    let values: [String: String]

    init(_ values: [String: String]) {
        self.values = values
    }

    func string(_ name: String) -> String? {
        values["KF_SERVE_" + name].flatMap { $0.isEmpty ? nil : $0 }
    }

    func flag(_ name: String) -> Bool {
        guard let value = string(name)?.lowercased() else { return false }
        return ["1", "true", "yes", "on"].contains(value)
    }

    func list(_ name: String) -> [String] {
        string(name)?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } ?? []
    }

    func integer(_ name: String) throws -> Int? {
        guard let text = string(name) else { return nil }
        guard let value = Int(text) else { throw ValidationError("KF_SERVE_\(name)=\(text): not a whole number.") }
        return value
    }

    func number(_ name: String) throws -> Double? {
        guard let text = string(name) else { return nil }
        guard let value = Double(text), value.isFinite else {
            throw ValidationError("KF_SERVE_\(name)=\(text): not a number.")
        }
        return value
    }
}
