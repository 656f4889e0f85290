import KingfisherLocking
import NIOPosix

/// A pool of decode threads and the ``Limiter`` in front of it: at most as many jobs run as the pool has threads;
/// the others wait in the limiter, the highest task priority first (first come first among equals), a waiting job
/// rises with its task's escalation, and a job whose task is cancelled while it waits leaves the queue and never
/// runs (``runUnlessCancelled(_:)``: the decode for a gallery tile scrolled away).
final class DecodeLane: Sendable {
    private let limiter: Limiter
    private let pool: NIOThreadPool
    private let counts = Locked((started: 0, left: 0))

    init(threads: Int) {
        limiter = Limiter(limit: threads)
        pool = NIOThreadPool(numberOfThreads: max(1, threads))
        pool.start()
    }

    /// Jobs waiting for a thread.
    var waitingCount: Int { limiter.waitingCount }

    /// The priorities of the waiting jobs, in the order they were submitted.
    var waitingPriorities: [TaskPriority] { limiter.waitingPriorities }

    /// How many jobs have started on a thread, and how many left the queue unrun, so far.
    var startedCount: Int { counts.withLock { $0.started } }
    var leftCount: Int { counts.withLock { $0.left } }

    /// Runs `job` on one of the pool's threads once the limiter lets it, even when the calling task is cancelled
    /// meanwhile.
    func run<T: Sendable>(_ job: @escaping @Sendable () -> T) async -> T {
        await limiter.withPermitIgnoringCancellation { await hand(job) }
    }

    /// Runs `job` on one of the pool's threads once the limiter lets it; `nil`, and `job` never runs, when the
    /// calling task is cancelled before that.
    func runUnlessCancelled<T: Sendable>(_ job: @escaping @Sendable () -> T) async -> T? {
        do {
            return try await limiter.withPermit { await hand(job) }
        } catch {
            counts.withLock { $0.left += 1 }
            return nil
        }
    }

    private func hand<T: Sendable>(_ job: @escaping @Sendable () -> T) async -> T {
        counts.withLock { $0.started += 1 }
        return await withSanitizedCheckedContinuation { continuation in
            pool.submit { _ in continuation.resume(returning: job()) }
        }
    }
}
