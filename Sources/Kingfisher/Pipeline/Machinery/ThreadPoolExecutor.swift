import KingfisherLocking
import NIOPosix

/// A thread pool that starts with its first job, so an owner that never uses it costs no threads, and stops when
/// it goes. Asked for more threads, it starts a larger pool for the jobs to come; the jobs on the old one finish
/// there.
///
/// It is a task executor too: code that prefers it (`withTaskExecutorPreference(pool) { ... }`) runs on its
/// threads, so a task moves to a thread for CPU-bound work and back without a callback or a continuation.
final class ThreadPoolExecutor: TaskExecutor, Sendable {
    private let state: Locked<(pool: NIOThreadPool?, threads: Int)>
    private let wanted: Locked<Int>

    init(threads: Int) {
        state = Locked((nil, 0))
        wanted = Locked(max(1, threads))
    }

    deinit {
        state.withLock { $0.pool }?.shutdownGracefully { _ in }
    }

    /// How many threads the pool has from the next job on (never fewer than it started with).
    var threads: Int {
        get { wanted.withLock { $0 } }
        set { wanted.withLock { $0 = max(1, newValue) } }
    }

    /// Runs `job` on one of the threads.
    func submit(_ job: @escaping @Sendable () -> Void) {
        currentPool().submit { _ in job() }
    }

    /// Runs a step of a task that prefers this executor on one of the threads.
    func enqueue(_ job: consuming ExecutorJob) {
        let step = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        currentPool().submit { _ in step.runSynchronously(on: executor) }
    }

    private func currentPool() -> NIOThreadPool {
        let wanted = threads
        let (current, retired) = state.withLock { state -> (NIOThreadPool, NIOThreadPool?) in
            if let running = state.pool, state.threads >= wanted { return (running, nil) }
            let started = NIOThreadPool(numberOfThreads: wanted)
            started.start()
            defer { state = (started, wanted) }
            return (started, state.pool)
        }
        retired?.shutdownGracefully { _ in }
        return current
    }
}
