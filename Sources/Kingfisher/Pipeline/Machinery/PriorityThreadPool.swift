import KingfisherLocking

/// A pool of decode threads and the ``Limiter`` in front of it: at most ``threads`` jobs run; the others wait in
/// the limiter, the highest task priority first (first come first among equals), a waiting job rises with its
/// task's escalation, and a job whose task is cancelled while it waits leaves the queue and never runs
/// (``runUnlessCancelled(_:)``: the decode for a gallery tile scrolled away).
///
/// The threads start with the first job, so an owner that never decodes costs none (``ThreadPoolExecutor``).
final class PriorityThreadPool: Sendable {
    private struct Counts {
        var started = 0
        var left = 0
    }

    private let limiter: Limiter
    private let pool: ThreadPoolExecutor
    private let counts = Locked(Counts())

    init(threads: Int) {
        limiter = Limiter(limit: threads)
        pool = ThreadPoolExecutor(threads: threads)
    }

    /// How many jobs run at once: changing it takes effect for the jobs that wait and those to come.
    var threads: Int {
        get { limiter.limit }
        set {
            pool.threads = max(pool.threads, newValue)
            limiter.limit = newValue
        }
    }
    /// Jobs waiting for a thread.
    var waitingCount: Int { limiter.waitingCount }

    /// The priorities of the waiting jobs, in the order they were submitted.
    var waitingPriorities: [TaskPriority] { limiter.waitingPriorities }

    /// Its limiter's hook (``Limiter/observer``): which jobs wait for a thread, get one, leave the queue.
    var observer: (@Sendable (Limiter.Event) -> Void)? {
        get { limiter.observer }
        set { limiter.observer = newValue }
    }

    /// How many jobs have started on a thread, and how many left the queue unrun, so far.
    var startedCount: Int { counts.withLock { $0.started } }
    var leftCount: Int { counts.withLock { $0.left } }

    /// Runs `job` on one of the pool's threads once the limiter lets it, even when the calling task is cancelled
    /// meanwhile.
    func run<T: Sendable>(_ job: @escaping @Sendable () -> T) async -> T {
        await limiter.withPermitIgnoringCancellation { await onThread(job) }
    }

    /// Runs `job` on one of the pool's threads once the limiter lets it; `nil`, and `job` never runs, when the
    /// calling task is cancelled before that. A job that started runs on its thread (the caller's task runs it
    /// there), holding its permit, to its end or, once cancelled, to the next strip
    /// of pixels it computes (``ProcessingRun``, set up by ``ImageWorkers``); its value is dropped (`nil`) when the
    /// caller was cancelled meanwhile. Callers that must leave at once wait for it through ``SharedWork``.
    func runUnlessCancelled<T: Sendable>(_ job: @escaping @Sendable () -> T) async -> T? {
        let permit: Limiter.Permit
        do {
            permit = try await limiter.acquire()
        } catch {
            counts.withLock { $0.left += 1 }
            return nil
        }
        defer { permit.release() }
        let value = await onThread(job)
        return Task.isCancelled ? nil : value
    }

    /// Runs `job` in the calling task, moved to one of the pool's threads for it.
    private func onThread<T: Sendable>(_ job: @Sendable () -> T) async -> T {
        counts.withLock { $0.started += 1 }
        return await withTaskExecutorPreference(pool) { job() }
    }
}
