import CoreMetrics

/// A ``KingfisherManager``'s metrics, made when the manager is: the processing its retrievals run themselves (a
/// provider's data, an original from the cache processed again). Downloads and cache lookups are the downloader's
/// and the cache's.
struct ManagerMetrics: Sendable {
    private let provider: CoreMetrics.Timer
    private let original: CoreMetrics.Timer

    init(sink: MetricsSink = MetricsSink()) {
        provider = sink.processingTimer(stage: "provider")
        original = sink.processingTimer(stage: "original")
    }

    func timeProvider<T>(_ body: () -> T) -> T { provider.time(body) }
    func timeOriginal<T>(_ body: () -> T) -> T { original.time(body) }
}
