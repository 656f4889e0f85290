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

    /// What the queue did with one job, told to its ``observer`` after its lock, in the order it happened. `job`
    /// numbers the jobs in submission order, from 0.
    enum Event: Sendable, Equatable {
        /// The job was submitted (it starts at once when its turn has come: `.started` follows).
        case queued(job: Int, Access)
        /// The job starts on one of the queue's threads.
        case started(job: Int, Access)
        /// The job returned.
        case finished(job: Int, Access)

        /// The job it is about.
        var job: Int {
            switch self {
            case .queued(let job, _), .started(let job, _), .finished(let job, _): job
            }
        }
    }

    private struct Numbered: Sendable {
        let id: Int
        let job: Job
    }

    private struct State {
        var machine: StateMachine<Numbered>
        var nextID = 0
        var outbox = EventOutbox<Event>()

        /// Under the lock: `started` as events, and what this thread is to deliver.
        mutating func events(starting started: [(Numbered, Access)]) -> EventOutbox<Event>.Batch? {
            guard outbox.isObserved else { return nil }
            for (job, access) in started { outbox.post(.started(job: job.id, access)) }
            return outbox.claim()
        }
    }

    private let state: Locked<State>
    private let pool: ThreadPoolExecutor

    /// A queue running up to `limit` shared jobs at once (at least one).
    init(limit: Int) {
        state = Locked(State(machine: StateMachine(limit: limit)))
        pool = ThreadPoolExecutor(threads: max(1, limit))
    }

    /// How many shared jobs run at once.
    var limit: Int { state.withLock { $0.machine.limit } }

    /// Jobs waiting to start, and running.
    var waitingCount: Int { state.withLock { $0.machine.waitingCount } }
    var runningCount: Int { state.withLock { $0.machine.runningCount } }

    /// Who is told what happens to each job (``Event``), outside the queue's lock and in order; `nil` by default,
    /// when nothing is recorded. Set it before the jobs it is to see are submitted (a test's hook).
    package var observer: (@Sendable (Event) -> Void)? {
        get { state.withLock { $0.outbox.observer } }
        set { state.withLock { $0.outbox.observer = newValue } }
    }

    /// Queues `job`; it runs on one of the queue's threads when its turn comes.
    func submit(_ access: Access = .shared, _ job: @escaping Job) {
        let (started, events) = state.withLock { state in
            let numbered = Numbered(id: state.nextID, job: job)
            state.nextID += 1
            state.outbox.post(.queued(job: numbered.id, access))
            let started = state.machine.submit(numbered, access)
            return (started, state.events(starting: started))
        }
        deliverEvents(events)
        start(started)
    }

    /// Queues `job` (at once, in submission order) and waits for its value. The job runs even when the calling
    /// task is cancelled meanwhile: disk work once asked for is done.
    func perform<T: Sendable>(_ access: Access = .shared, _ job: @escaping @Sendable () -> T) async -> T {
        await withSanitizedCheckedContinuation { continuation in
            submit(access) { continuation.resume(returning: job()) }
        }
    }

    private func start(_ jobs: [(Numbered, Access)]) {
        for (numbered, access) in jobs {
            pool.submit { [self] in
                numbered.job()
                let (started, events) = state.withLock { state in
                    state.outbox.post(.finished(job: numbered.id, access))
                    let started = state.machine.finish(access)
                    return (started, state.events(starting: started))
                }
                deliverEvents(events)
                start(started)
            }
        }
    }

    private func deliverEvents(_ batch: EventOutbox<Event>.Batch?) {
        EventOutbox.deliver(batch) { state.withLock { $0.outbox.next() } }
    }
}
