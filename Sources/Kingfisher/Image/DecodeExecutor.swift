import Foundation
import NIOPosix

/// The decode stage's executor: where every decode and processing run happens (downloads, providers, disk hits,
/// originals processed again, encodes for the disk). A pool of threads sized to the cores, so CPU-bound libvips
/// work never holds the cooperative thread pool and at most one decode runs per core; a large progressive JPEG is
/// admitted by ``LargeDecodeGate`` before it takes a thread. It lives for the process.
enum DecodeExecutor {
    static let shared: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: max(1, ProcessInfo.processInfo.activeProcessorCount))
        pool.start()
        return pool
    }()

    /// Runs `body`, which decodes `data`, on `queue` when the options name a dispatch queue, otherwise on the
    /// shared pool, once ``LargeDecodeGate`` admits it (a large progressive JPEG waits for the one before it
    /// without holding a thread).
    static func run<T: Sendable>(
        on queue: CallbackQueue?, decoding data: Data?, _ body: @escaping @Sendable () -> T
    ) async -> T {
        await LargeDecodeGate.admitted(data, { await run(on: queue, $0) }, work: body)
    }

    /// Runs `body` on `queue` when the options name one (a dispatch or operation queue), otherwise on the shared pool.
    static func run<T: Sendable>(on queue: CallbackQueue?, _ body: @escaping @Sendable () -> T) async -> T {
        DecodeQueueDepth.enter()
        defer { DecodeQueueDepth.leave() }
        if let queue, queue.runsElsewhere {
            return await withCheckedContinuation { continuation in
                queue.execute { continuation.resume(returning: body()) }
            }
        }
        do {
            return try await shared.runIfActive(body)
        } catch {
            // The pool is never shut down; run in place rather than fail.
            return body()
        }
    }
}
