import KingfisherLocking

/// Where a cache's disk work runs: a few threads of its own (never the cooperative pool, never an unbounded
/// queue), started on first use. Jobs start in the order they were submitted; shared ones (reads, writes that
/// replace a file whole) run together up to ``limit``, an exclusive one (a removal, a sweep) runs alone, as a
/// dispatch queue's barrier does, so a lookup submitted after a removal never sees the removed file.
///
/// ```swift
/// let bytes = await io.perform { try? storage.value(forKey: key) }
/// io.submit(.exclusive) { try? storage.remove(forKey: key) }
/// ```
final class DiskIO: Sendable {
    /// How a job shares the disk.
    enum Access: Sendable {
        /// Alongside other shared jobs.
        case shared
        /// Alone: after every job before it, before every job after it.
        case exclusive
    }

    typealias Job = @Sendable () -> Void

    private let state: Locked<StateMachine<Job>>
    private let pool: StartedOnUse

    /// A queue running up to `limit` shared jobs at once (at least one).
    init(limit: Int) {
        state = Locked(StateMachine(limit: limit))
        pool = StartedOnUse(threads: max(1, limit))
    }

    /// How many shared jobs run at once.
    var limit: Int { state.withLock { $0.limit } }

    /// Jobs waiting to start, and running.
    var waitingCount: Int { state.withLock { $0.waitingCount } }
    var runningCount: Int { state.withLock { $0.runningCount } }

    /// Queues `job`; it runs on one of the queue's threads when its turn comes.
    func submit(_ access: Access = .shared, _ job: @escaping Job) {
        start(state.withLock { $0.submit(job, access) })
    }

    /// Queues `job` (at once, in submission order) and waits for its value. The job runs even when the calling
    /// task is cancelled meanwhile: disk work once asked for is done.
    func perform<T: Sendable>(_ access: Access = .shared, _ job: @escaping @Sendable () -> T) async -> T {
        await withSanitizedCheckedContinuation { continuation in
            submit(access) { continuation.resume(returning: job()) }
        }
    }

    private func start(_ jobs: [(Job, Access)]) {
        for (job, access) in jobs {
            pool.submit { [self] in
                job()
                start(state.withLock { $0.finish(access) })
            }
        }
    }
}
