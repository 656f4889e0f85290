import CoreMetrics

// The metric handles each component makes once, when it is made, from the names in KingfisherMetrics.swift.

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
    /// Checking downloaded bodies' headers without decoding them (a prefetch storing original bytes).
    let headerCheck: CoreMetrics.Timer

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
        headerCheck = sink.processingTimer(stage: "header")
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

    /// Times `body` as processing, or as a header check when `headerOnly` (nothing decoded).
    func timeProcessing<T>(headerOnly: Bool, _ body: () -> T) -> T {
        (headerOnly ? headerCheck : processing).time(body)
    }
}

/// An ``ImageCache``'s metrics, made when the cache is, with the cache's name as the `cache` dimension.
struct CacheMetrics: Sendable {
    private let memoryHits: Counter
    private let memoryMisses: Counter
    private let diskHits: Counter
    private let diskMisses: Counter
    private let diskReadsCoalesced: Counter
    private let writeFailures: Counter
    private let writes: Counter
    /// Decoding disk hits with the serializer.
    private let decode: CoreMetrics.Timer
    /// Encoding images for the disk with the serializer.
    private let encode: CoreMetrics.Timer

    init(cacheName: String, sink: MetricsSink = MetricsSink()) {
        let cache = ("cache", cacheName)
        memoryHits = sink.counter(MetricName.cacheHits, [cache, ("tier", "memory")])
        memoryMisses = sink.counter(MetricName.cacheMisses, [cache, ("tier", "memory")])
        diskHits = sink.counter(MetricName.cacheHits, [cache, ("tier", "disk")])
        diskMisses = sink.counter(MetricName.cacheMisses, [cache, ("tier", "disk")])
        diskReadsCoalesced = sink.counter(MetricName.diskReadsCoalesced, [cache])
        writeFailures = sink.counter(MetricName.diskWriteFailures, [cache])
        writes = sink.counter(MetricName.diskWrites, [cache])
        decode = sink.processingTimer(stage: "disk")
        encode = sink.processingTimer(stage: "encode")
    }

    func countMemoryLookup(hit: Bool) { (hit ? memoryHits : memoryMisses).increment() }
    func countDiskLookup(hit: Bool) { (hit ? diskHits : diskMisses).increment() }
    func countCoalescedRead() { diskReadsCoalesced.increment() }
    func countWriteFailure() { writeFailures.increment() }
    func countWrite() { writes.increment() }
    func timeDecode<T>(_ body: () -> T) -> T { decode.time(body) }
    func timeEncode<T>(_ body: () -> T) -> T { encode.time(body) }
}

/// A ``KingfisherManager``'s metrics, made when the manager is: the processing its retrievals run themselves (a
/// provider's data, an original from the cache processed again). Downloads and cache lookups are the downloader's
/// and the cache's.
struct ManagerMetrics: Sendable {
    private let provider: CoreMetrics.Timer
    private let original: CoreMetrics.Timer
    private let headerCheck: CoreMetrics.Timer

    init(sink: MetricsSink = MetricsSink()) {
        provider = sink.processingTimer(stage: "provider")
        original = sink.processingTimer(stage: "original")
        headerCheck = sink.processingTimer(stage: "header")
    }

    /// Times a provider's bytes processed, or only their header checked when `headerOnly` (nothing decoded: an
    /// original-bytes prefetch).
    func timeProvider<T>(headerOnly: Bool = false, _ body: () -> T) -> T {
        (headerOnly ? headerCheck : provider).time(body)
    }
    func timeOriginal<T>(_ body: () -> T) -> T { original.time(body) }
}
