import CoreMetrics

/// An ``ImageDownloader``'s metrics, made when the downloader is, with its name as the `downloader` dimension.
/// The per-status download counters are made on first use (a backend hands out the same one again).
struct DownloaderMetrics: Sendable {
    let sink: MetricsSink
    let name: String
    let bytes: Counter
    let duration: CoreMetrics.Timer
    let coalescedWaiters: Counter
    let queueDepth: Gauge
    let running: Gauge
    /// Decoding and processing downloaded bodies.
    let processing: CoreMetrics.Timer

    init(downloaderName name: String, sink: MetricsSink = MetricsSink()) {
        self.sink = sink
        self.name = name
        let downloader = ("downloader", name)
        bytes = sink.counter(MetricName.downloadBytes, [downloader])
        duration = sink.timer(MetricName.downloadDuration, [downloader])
        coalescedWaiters = sink.counter(MetricName.downloadWaitersCoalesced, [downloader])
        queueDepth = sink.gauge(MetricName.downloadQueueDepth, [downloader])
        running = sink.gauge(MetricName.downloadsRunning, [downloader])
        processing = sink.processingTimer(stage: "download")
    }

    /// Counts a download that ended with `status`: an HTTP status code, `error` (no usable response), `cancelled`.
    func countDownload(status: String) {
        sink.counter(MetricName.downloads, [("downloader", name), ("status", status)]).increment()
    }

    func countCoalescedWaiter() { coalescedWaiters.increment() }

    func recordDepths(queued: Int, running: Int) {
        queueDepth.record(queued)
        self.running.record(running)
    }

    func timeProcessing<T>(_ body: () -> T) -> T { processing.time(body) }
}
