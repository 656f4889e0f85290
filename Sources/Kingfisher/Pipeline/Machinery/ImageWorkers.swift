import CoreMetrics
import Foundation
import KingfisherLocking

/// Where an owner's decodes and processing runs happen (downloads, providers, disk hits, originals processed
/// again, encodes for the disk): its ``PriorityThreadPool``, one thread per core by default
/// (``ImageEngine/Configuration/decodeConcurrency``), so CPU-bound libvips work never holds the cooperative thread
/// pool and at most that many run at once; waiting work goes by task priority. A memory-hungry decode is admitted
/// one at a time before it takes a thread (``needsAdmission(_:)``). The work runs with its owner's
/// ``ImageEngine/Configuration`` (limits) applied.
///
/// Each owner has its own (``ImagePipeline``, and an ``ImageCache`` or ``ImageDownloader`` used alone), so two
/// of them in one process keep their own limits.
final class ImageWorkers: Sendable {
    let lane: PriorityThreadPool
    /// Admits one memory-hungry decode at a time.
    let largeDecodes = Limiter(limit: 1)
    /// Where progressive JPEG previews are decoded: threads of their own (half the cores, at least one), so a
    /// preview never takes a thread from the final decodes.
    let previews = ThreadPoolExecutor(threads: ProcessInfo.processInfo.activeProcessorCount / 2)

    /// Bytes read from a disk for a decode of these workers (a cached original to process again): at most
    /// ``readAheadPerThread`` per thread are read and waiting for, or in, their decode; the other readers wait
    /// before reading, so a burst of lookups faster than the decodes never piles whole files up in memory.
    private let readAhead: Limiter
    /// How many bodies per decode thread may be read ahead of their decode.
    static let readAheadPerThread = 2
    /// The bodies these workers hold, waiting or running (``MetricName/decodeQueueDepth``): added as they enter,
    /// taken away as they leave, so the backend sums every owner's stage without a lock between them.
    private let depth: Meter

    init(threads: Int, metrics: MetricsSink = MetricsSink()) {
        lane = PriorityThreadPool(threads: threads)
        readAhead = Limiter(limit: threads * Self.readAheadPerThread)
        depth = metrics.meter(MetricName.decodeQueueDepth, [])
    }

    /// How many decodes run at once (the lane's threads): changing it takes effect for the work that waits and
    /// the work to come.
    var threads: Int {
        get { lane.threads }
        set {
            lane.threads = newValue
            readAhead.limit = newValue * Self.readAheadPerThread
        }
    }

    /// Readers waiting to read, and reading or decoding, now.
    var readAheadWaitingCount: Int { readAhead.waitingCount }
    var readAheadHoldingCount: Int { readAhead.holdingCount }

    /// Runs `body`, which reads bytes and decodes them on these workers, once fewer than the read-ahead bound do;
    /// `nil` when the calling task is cancelled while it waits (`body` never runs).
    func readingAhead<T: Sendable>(_ body: () async -> T?) async -> T? {
        guard let permit = try? await readAhead.acquire() else { return nil }
        defer { permit.release() }
        return await body()
    }

    /// Runs `body`, which decodes `data`, on `queue` when the options name a dispatch queue, otherwise on the
    /// lane (its owner sizes it), with `engine`'s limits applied. It runs
    /// even when the calling task is cancelled meanwhile: for work that must happen once asked for.
    func run<T: Sendable>(
        on queue: CallbackQueue?, decoding data: Data? = nil, shrunkToFit side: Int? = nil,
        engine: ImageEngine.Configuration, _ body: @escaping @Sendable () -> T
    ) async -> T {
        let work = prepare(engine, body)
        depth.increment()
        defer { depth.decrement() }
        guard engine.largeDecodesOneAtATime, Self.needsAdmission(data, shrunkToFit: side, engine: engine) else {
            return await hand(work, to: queue)
        }
        return await largeDecodes.withPermitIgnoringCancellation { await hand(work, to: queue) }
    }

    /// As ``run(on:decoding:engine:_:)``, but a caller whose task is cancelled while its work waits leaves: `nil`,
    /// and `body` never runs. Work on a dispatch queue cannot leave that queue: it is not started
    /// when the caller was cancelled already.
    func runUnlessCancelled<T: Sendable>(
        on queue: CallbackQueue?, decoding data: Data? = nil, shrunkToFit side: Int? = nil,
        engine: ImageEngine.Configuration, _ body: @escaping @Sendable () -> T
    ) async -> T? {
        let work = prepare(engine, stopsWhenCancelled: true, body)
        depth.increment()
        defer { depth.decrement() }
        guard engine.largeDecodesOneAtATime, Self.needsAdmission(data, shrunkToFit: side, engine: engine) else {
            return await handUnlessCancelled(work, to: queue)
        }
        // A cancel leaves either wait: the admission, then the lane.
        return try? await largeDecodes.withPermit {
            await handUnlessCancelled(work, to: queue)
        }
    }

    /// Whether decoding `data` (whole, or shrunk on load to fit a box of `side` pixels) must wait for the decodes of
    /// its kind before it: an image whose header declares ``VipsRuntime/largeDecodePixels`` or more, except when its
    /// decode holds a few rows at a time: a baseline JPEG; a progressive one at 1/8 from its DC scans
    /// (``JPEGEighthScale``: a large progressive JPEG otherwise keeps every DCT coefficient until its last scan, two
    /// bytes a sample, 44–88 MB for 5120 × 2880); a lossy WebP shrunk on load (libwebp scales rows as it decodes
    /// them). Two memory-hungry decodes at once on a two-core pool doubled the peak resident size of a prefetch. The
    /// formats ``ImageHeaderSize`` does not parse (HEIF, AVIF, TIFF, SVG) have their header read by libvips, under
    /// `engine`'s limits (an image over them is refused by its decode anyway).
    static func needsAdmission(
        _ data: Data?, shrunkToFit side: Int? = nil, engine: ImageEngine.Configuration = .default
    ) -> Bool {
        guard let data, let size = declaredSize(of: data, engine: engine),
            size.width * size.height >= VipsRuntime.largeDecodePixels
        else { return false }
        switch data.kf.imageFormat {
        case .JPEG:
            guard let frame = JPEGFrameHeader(data) else { return true }
            guard frame.isProgressive else { return false }
            // ImageDecoder shrinks a JPEG at 1/8 when its long side is at least 8 times the box's.
            guard let side, max(size.width, size.height) / 8 >= side else { return true }
            return !JPEGEighthScale.takesFrame(of: data)
        case .WebP:
            return side == nil || !WebPHeader.isPlainLossy(data)
        default:
            return true
        }
    }

    /// The side of the box `processor` decodes `data` to fit, when it shrinks on load (``ShrinksOnLoad``).
    static func shrinkOnLoadSide(
        of processor: any ImageProcessor, for data: Data?, options: KingfisherParsedOptionsInfo
    ) -> Int? {
        guard let data, let shrinking = processor as? any ShrinksOnLoad else { return nil }
        return shrinking.shrinkOnLoadSide(for: data, scale: options.scaleFactor)
    }

    /// The size `data`'s header declares: parsed here for the common formats, read by libvips (no pixel decoded)
    /// for the others it loads; `nil` for bytes that are no image.
    private static func declaredSize(
        of data: Data, engine: ImageEngine.Configuration
    ) -> (width: Int, height: Int)? {
        if let size = ImageHeaderSize.of(data) { return size }
        switch data.kf.imageFormat {
        case .HEIF, .AVIF, .TIFF, .SVG:
            return ImageEngine.Configuration.applying(engine) { try? ImageDecoder.headerPixelSize(of: data) }
        case .unknown, .PNG, .JPEG, .GIF, .WebP, .BMP:
            return nil
        }
    }

    /// `body` with `engine` applied, as one ``ProcessingRun``: one time limit from its start for all it computes;
    /// stopped between strips of pixels, if `stopsWhenCancelled`, when the calling task is cancelled (nobody waits
    /// for it any more).
    private func prepare<T>(
        _ engine: ImageEngine.Configuration, stopsWhenCancelled: Bool = false,
        _ body: @escaping @Sendable () -> T
    ) -> @Sendable () -> T {
        {
            let run = ProcessingRun(limit: engine.timeLimit, stopsWhenCancelled: stopsWhenCancelled)
            return ImageEngine.Configuration.applying(engine, run: run, body)
        }
    }

    private func hand<T: Sendable>(_ work: @escaping @Sendable () -> T, to queue: CallbackQueue?) async -> T {
        guard let executor = queue.flatMap(CallbackQueueExecutor.init) else { return await lane.run(work) }
        return await withTaskExecutorPreference(executor) { work() }
    }

    private func handUnlessCancelled<T: Sendable>(
        _ work: @escaping @Sendable () -> T, to queue: CallbackQueue?
    ) async -> T? {
        guard let queue, queue.runsElsewhere else { return await lane.runUnlessCancelled(work) }
        return Task.isCancelled ? nil : await hand(work, to: queue)
    }
}
