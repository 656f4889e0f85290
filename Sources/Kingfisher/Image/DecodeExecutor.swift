import Foundation
import KingfisherLocking
import NIOPosix

/// The decode stage's executor: where every decode and processing run happens (downloads, providers, disk hits,
/// originals processed again, encodes for the disk). Pools of threads, one per core by default
/// (``ImageEngine/Configuration/decodeConcurrency``), so CPU-bound libvips work never holds the cooperative thread
/// pool and at most that many decodes run at once; a large progressive JPEG is admitted by ``LargeDecodeGate``
/// before it takes a thread. The work runs with its owner's ``ImageEngine/Configuration`` (limits) applied. Pools
/// live for the process; owners with the same concurrency share one.
enum DecodeExecutor {
    private static let pools = Locked<[Int: NIOThreadPool]>([:])

    /// The pool with `threads` threads, started on first use.
    static func pool(threads: Int) -> NIOThreadPool {
        pools.withLock { pools in
            if let pool = pools[threads] { return pool }
            let pool = NIOThreadPool(numberOfThreads: threads)
            pool.start()
            pools[threads] = pool
            return pool
        }
    }

    /// Runs `body`, which decodes `data`, on `queue` when the options name a dispatch queue, otherwise on the
    /// pool of `engine` (the default configuration's when `nil`), once ``LargeDecodeGate`` admits it (a large
    /// progressive JPEG waits for the one before it without holding a thread).
    static func run<T: Sendable>(
        on queue: CallbackQueue?, decoding data: Data?, engine: ImageEngine.Configuration? = nil,
        _ body: @escaping @Sendable () -> T
    ) async -> T {
        let configuration = engine ?? .default
        guard configuration.largeDecodesOneAtATime else { return await run(on: queue, engine: engine, body) }
        return await LargeDecodeGate.admitted(data, { await run(on: queue, engine: engine, $0) }, work: body)
    }

    /// Runs `body` on `queue` when the options name one (a dispatch or operation queue), otherwise on the pool of
    /// `engine`, with `engine` applied.
    static func run<T: Sendable>(
        on queue: CallbackQueue?, engine: ImageEngine.Configuration? = nil, _ body: @escaping @Sendable () -> T
    ) async -> T {
        let work: @Sendable () -> T = { ImageEngine.Configuration.applying(engine, body) }
        DecodeQueueDepth.enter()
        defer { DecodeQueueDepth.leave() }
        if let queue, queue.runsElsewhere {
            return await withSanitizedCheckedContinuation { continuation in
                queue.execute { continuation.resume(returning: work()) }
            }
        }
        let threads = engine?.decodeConcurrency ?? ImageEngine.Configuration.default.decodeConcurrency
        do {
            return try await pool(threads: threads).runIfActive(work)
        } catch {
            // Pools are never shut down; run in place rather than fail.
            return work()
        }
    }
}
