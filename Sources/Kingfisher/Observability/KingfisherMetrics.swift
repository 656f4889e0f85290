import CoreMetrics
import Foundation

/// The names of the metrics the package reports through swift-metrics, and the helpers that make them.
///
/// Every name starts with `kingfisher_`; dimensions are few and bounded (a component's name, an HTTP status, a cache
/// tier, a stage), never a URL or a key. Timers record nanoseconds, as swift-metrics' timers do.
///
/// | name | kind | dimensions |
/// |---|---|---|
/// | `kingfisher_downloads_total` | counter | `downloader`, `status` (HTTP code, `error`, `cancelled`) |
/// | `kingfisher_download_bytes_total` | counter | `downloader` |
/// | `kingfisher_download_duration_seconds` | timer | `downloader` |
/// | `kingfisher_download_waiters_coalesced_total` | counter | `downloader` |
/// | `kingfisher_download_queue_depth`, `kingfisher_downloads_running` | gauge | `downloader` |
/// | `kingfisher_cache_hits_total`, `kingfisher_cache_misses_total` | counter | `cache`, `tier` (`memory`, `disk`) |
/// | `kingfisher_disk_reads_coalesced_total` | counter | `cache` |
/// | `kingfisher_disk_write_failures_total` | counter | `cache` |
/// | `kingfisher_processing_duration_seconds` | timer | `stage` (`download`, `provider`, `original`, `disk`, `encode`; `header`: a prefetch's header check, nothing decoded) |
/// | `kingfisher_decode_queue_depth` | meter (a gauge moved up and down; a backend sums every owner's workers) | none |
enum MetricName {
    static let downloads = "kingfisher_downloads_total"
    static let downloadBytes = "kingfisher_download_bytes_total"
    static let downloadDuration = "kingfisher_download_duration_seconds"
    static let downloadWaitersCoalesced = "kingfisher_download_waiters_coalesced_total"
    static let downloadQueueDepth = "kingfisher_download_queue_depth"
    static let downloadsRunning = "kingfisher_downloads_running"
    static let cacheHits = "kingfisher_cache_hits_total"
    static let cacheMisses = "kingfisher_cache_misses_total"
    static let diskReadsCoalesced = "kingfisher_disk_reads_coalesced_total"
    static let diskWriteFailures = "kingfisher_disk_write_failures_total"
    static let diskWrites = "kingfisher_disk_writes_total"
    static let processingDuration = "kingfisher_processing_duration_seconds"
    static let decodeQueueDepth = "kingfisher_decode_queue_depth"
}

/// Where one component's metrics go: the metrics factory that was current when the component was created (the one
/// `MetricsSystem.bootstrap` set, or a task-local one bound with `withMetricsFactory`, which is how tests keep
/// theirs apart). A component makes its metrics once, so recording costs one call into the backend.
struct MetricsSink: Sendable {
    let factory: any MetricsFactory

    init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
    }

    func counter(_ label: String, _ dimensions: [(String, String)]) -> Counter {
        Counter(label: label, dimensions: dimensions, factory: factory)
    }

    func timer(_ label: String, _ dimensions: [(String, String)]) -> CoreMetrics.Timer {
        CoreMetrics.Timer(label: label, dimensions: dimensions, factory: factory)
    }

    func gauge(_ label: String, _ dimensions: [(String, String)]) -> Gauge {
        Gauge(label: label, dimensions: dimensions, factory: factory)
    }

    func meter(_ label: String, _ dimensions: [(String, String)]) -> Meter {
        Meter(label: label, dimensions: dimensions, factory: factory)
    }

    /// The timer of a processing stage (see ``MetricName/processingDuration``).
    func processingTimer(stage: String) -> CoreMetrics.Timer {
        timer(MetricName.processingDuration, [("stage", stage)])
    }
}

extension CoreMetrics.Timer {
    /// Runs `body`, recording how long it took.
    func time<T>(_ body: () -> T) -> T {
        let start = ContinuousClock.now
        defer { record(ContinuousClock.now - start) }
        return body()
    }

    /// Records `duration` (in nanoseconds, as swift-metrics' timers count).
    func record(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        recordNanoseconds(overflow ? Int64.max : scaled.addingReportingOverflow(attoseconds / 1_000_000_000).0)
    }
}

extension Duration {
    /// Milliseconds, with three decimals, for log metadata.
    var loggedMilliseconds: String {
        let (seconds, attoseconds) = components
        let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        return String(format: "%.3f", milliseconds)
    }
}
