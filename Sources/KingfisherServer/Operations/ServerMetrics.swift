import CoreMetrics
import Foundation
import KingfisherLocking

/// The server's own metrics, next to the library's `kingfisher_*` ones, through swift-metrics (the factory current
/// when the server was made).
///
/// | name | kind | dimensions |
/// |---|---|---|
/// | `kf_serve_responses_total` | counter | `status` (HTTP code) |
/// | `kf_serve_results_total` | counter | `from` (`memory`, `disk`, `made`, `joined`) |
/// | `kf_serve_request_duration_seconds` | timer | none |
/// | `kf_serve_requests_queued` | gauge | none |
final class ServerMetrics: Sendable {
    enum ResultOrigin: String, CaseIterable {
        case memory, disk, store, made, joined
    }

    private let factory: any MetricsFactory
    private let responses = Locked([Int: Counter]())
    private let results: [ResultOrigin: Counter]
    private let duration: CoreMetrics.Timer
    private let queued: Gauge

    init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
        results = Dictionary(
            uniqueKeysWithValues: ResultOrigin.allCases.map {
                ($0, Counter(label: "kf_serve_results_total", dimensions: [("from", $0.rawValue)], factory: factory))
            })
        duration = CoreMetrics.Timer(label: "kf_serve_request_duration_seconds", dimensions: [], factory: factory)
        queued = Gauge(label: "kf_serve_requests_queued", dimensions: [], factory: factory)
    }

    func countResponse(status: Int, nanoseconds: Int64) {
        let counter = responses.withLock { counters in
            if let counter = counters[status] { return counter }
            let counter = Counter(
                label: "kf_serve_responses_total", dimensions: [("status", String(status))], factory: factory)
            counters[status] = counter
            return counter
        }
        counter.increment()
        duration.recordNanoseconds(nanoseconds)
    }

    func countResult(from origin: ResultOrigin) {
        results[origin]?.increment()
    }

    func recordQueue(_ depth: Int) {
        queued.record(depth)
    }
}
