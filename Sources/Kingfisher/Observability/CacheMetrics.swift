import CoreMetrics

/// An ``ImageCache``'s metrics, made when the cache is, with the cache's name as the `cache` dimension.
struct CacheMetrics: Sendable {
    private let memoryHits: Counter
    private let memoryMisses: Counter
    private let diskHits: Counter
    private let diskMisses: Counter
    private let diskReadsCoalesced: Counter
    private let writeFailures: Counter
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
        decode = sink.processingTimer(stage: "disk")
        encode = sink.processingTimer(stage: "encode")
    }

    func countMemoryLookup(hit: Bool) { (hit ? memoryHits : memoryMisses).increment() }
    func countDiskLookup(hit: Bool) { (hit ? diskHits : diskMisses).increment() }
    func countCoalescedRead() { diskReadsCoalesced.increment() }
    func countWriteFailure() { writeFailures.increment() }
    func timeDecode<T>(_ body: () -> T) -> T { decode.time(body) }
    func timeEncode<T>(_ body: () -> T) -> T { encode.time(body) }
}
