import Tracing

/// The spans the library names, through swift-distributed-tracing: one per stage a retrieval takes, inside one for
/// the retrieval, and a client span per origin request (whose W3C `traceparent` goes out with it). The library
/// never picks a tracer: the application bootstraps one (`InstrumentationSystem.bootstrap`; `kf serve` uses
/// swift-otel when `OTEL_*` asks), and without one every span is the no-op tracer's. docs/OBSERVABILITY.md lists
/// them with their attributes.
enum StageSpan: String {
    /// A whole retrieval (`KingfisherManager.retrieveImage`): `kingfisher.cache_key`, `kingfisher.processor`, and
    /// at its end `kingfisher.cache_type` (`none`, `memory`, `disk`).
    case retrieve = "kingfisher.retrieve"
    /// Stage 1, the memory cache: `kingfisher.hit`.
    case memory = "kingfisher.memory"
    /// Stage 2, the disk cache (the read and the hit's decode): `kingfisher.hit`.
    case disk = "kingfisher.disk"
    /// Stage 3, the fetch: a download (its origin requests are its children) or a data provider's data.
    case fetch = "kingfisher.fetch"
    /// Stage 4 (and 5, when the processor decodes the bytes itself, shrinking on load): bytes to an image.
    case decode = "kingfisher.decode"
    /// Stage 5 alone: a processor over an image decoded already (a cached original).
    case process = "kingfisher.process"
    /// Stage 6, the serializer's bytes for the disk.
    case encode = "kingfisher.encode"
    /// Stage 7, memory and disk writes.
    case store = "kingfisher.store"

    /// Runs `body` in this stage's span; with no tracer bootstrapped, without one (`body` gets a no-op span, so
    /// tracing off costs a check).
    func run<Value>(_ body: (any Span) async throws -> Value) async rethrows -> Value {
        let tracer = InstrumentationSystem.tracer
        guard !(tracer is NoOpTracer) else { return try await body(Self.off) }
        return try await tracer.withSpan(rawValue, ofKind: .internal) { span in try await body(span) }
    }

    /// Runs `body`, which does not suspend, in this stage's span (none with no tracer bootstrapped).
    func runNow<Value>(_ body: (any Span) throws -> Value) rethrows -> Value {
        let tracer = InstrumentationSystem.tracer
        guard !(tracer is NoOpTracer) else { return try body(Self.off) }
        return try tracer.withSpan(rawValue, ofKind: .internal) { span in try body(span) }
    }

    /// What a stage's body gets when nothing traces.
    private static let off = NoOpTracer.NoOpSpan(context: .topLevel)
}

extension CacheType {
    /// How a span says where the image came from.
    var spanValue: String {
        switch self {
        case .none: "none"
        case .memory: "memory"
        case .disk: "disk"
        }
    }
}
