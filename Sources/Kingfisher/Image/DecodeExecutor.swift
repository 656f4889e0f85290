import Foundation
import KingfisherLocking

/// The decode stage's executor: where every decode and processing run happens (downloads, providers, disk hits,
/// originals processed again, encodes for the disk). Pools of threads, one per core by default
/// (``ImageEngine/Configuration/decodeConcurrency``), so CPU-bound libvips work never holds the cooperative thread
/// pool and at most that many decodes run at once; waiting work goes by task priority (``DecodeLane``); a large progressive JPEG is admitted by ``LargeDecodeGate``
/// before it takes a thread. The work runs with its owner's ``ImageEngine/Configuration`` (limits) applied. Pools
/// live for the process; owners with the same concurrency share one.
enum DecodeExecutor {
    private static let lanes = Locked<[Int: DecodeLane]>([:])

    /// The lane of the pool with `threads` threads, started on first use.
    static func lane(threads: Int) -> DecodeLane {
        lanes.withLock { lanes in
            if let lane = lanes[threads] { return lane }
            let lane = DecodeLane(threads: threads)
            lanes[threads] = lane
            return lane
        }
    }

    /// Runs `body`, which decodes `data`, on `queue` when the options name a dispatch queue, otherwise on the
    /// pool of `engine` (the default configuration's when `nil`), once ``LargeDecodeGate`` admits it (a large
    /// progressive JPEG waits for the one before it without holding a thread). It runs even when the calling task
    /// is cancelled meanwhile: for work that must happen once asked for.
    static func run<T: Sendable>(
        on queue: CallbackQueue?, decoding data: Data? = nil, engine: ImageEngine.Configuration? = nil,
        _ body: @escaping @Sendable () -> T
    ) async -> T {
        let work: @Sendable () -> T = { ImageEngine.Configuration.applying(engine, body) }
        DecodeQueueDepth.enter()
        defer { DecodeQueueDepth.leave() }
        if let queue, queue.runsElsewhere { return await run(work, on: queue) }
        let lane = lane(for: engine)
        guard admitsOneAtATime(data, engine) else { return await lane.run(work) }
        return await LargeDecodeGate.admission.withPermitIgnoringCancellation {
            await lane.run(LargeDecodeGate.marking(work))
        }
    }

    /// As ``run(on:decoding:engine:_:)``, but a caller cancelled while its work waits leaves: `nil`, and `body`
    /// never runs. Work on a dispatch queue cannot leave that queue: it is not started when the caller was
    /// cancelled already.
    static func runUnlessCancelled<T: Sendable>(
        on queue: CallbackQueue?, decoding data: Data? = nil, engine: ImageEngine.Configuration? = nil,
        _ body: @escaping @Sendable () -> T
    ) async -> T? {
        let work: @Sendable () -> T = { ImageEngine.Configuration.applying(engine, body) }
        DecodeQueueDepth.enter()
        defer { DecodeQueueDepth.leave() }
        if let queue, queue.runsElsewhere { return Task.isCancelled ? nil : await run(work, on: queue) }
        let lane = lane(for: engine)
        guard admitsOneAtATime(data, engine) else { return await lane.runUnlessCancelled(work) }
        return try? await LargeDecodeGate.admission.withPermit {
            await lane.runUnlessCancelled(LargeDecodeGate.marking(work))
        }
    }

    /// The lane of the pool `engine` decodes on.
    private static func lane(for engine: ImageEngine.Configuration?) -> DecodeLane {
        lane(threads: engine?.decodeConcurrency ?? ImageEngine.Configuration.default.decodeConcurrency)
    }

    /// Whether decoding `data` waits for ``LargeDecodeGate``'s admission first.
    private static func admitsOneAtATime(_ data: Data?, _ engine: ImageEngine.Configuration?) -> Bool {
        (engine ?? .default).largeDecodesOneAtATime && LargeDecodeGate.needsAdmission(data)
    }

    private static func run<T: Sendable>(_ work: @escaping @Sendable () -> T, on queue: CallbackQueue) async -> T {
        await withSanitizedCheckedContinuation { continuation in
            queue.execute { continuation.resume(returning: work()) }
        }
    }
}
