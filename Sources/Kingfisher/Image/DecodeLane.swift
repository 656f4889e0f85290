import KingfisherLocking
import NIOPosix

/// The order in which a decode pool takes work: at most as many jobs are handed to the pool as it has threads,
/// the others wait here and the one with the highest task priority goes next (first come first among equals).
///
/// A job's priority is its task's when it was submitted and rises when the task is escalated
/// (``raise(_:to:)``): a shared decode that a higher-priority retrieval joins overtakes the lower-priority work
/// queued before it.
final class DecodeLane: Sendable {
    /// A submitted job's place in the lane.
    struct Ticket: Hashable, Sendable {
        fileprivate let number: Int
    }

    private struct Waiting {
        let number: Int
        let job: @Sendable () -> Void
    }

    private struct State {
        var running = 0
        var waiting = PriorityQueue<UInt8, Waiting>()
        var nextNumber = 0
    }

    private let pool: NIOThreadPool
    private let threads: Int
    private let state = Locked(State())

    init(threads: Int) {
        self.threads = threads
        self.pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
    }

    /// Jobs waiting for a thread.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Runs `job` on one of the pool's threads: at once when one is free, otherwise when it is the highest-priority
    /// job waiting and a thread frees.
    @discardableResult
    func submit(priority: TaskPriority, _ job: @escaping @Sendable () -> Void) -> Ticket {
        let (ticket, runNow) = state.withLock { state -> (Ticket, Bool) in
            let number = state.nextNumber
            state.nextNumber += 1
            guard state.running < threads else {
                state.waiting.append(Waiting(number: number, job: job), priority: priority.rawValue)
                return (Ticket(number: number), false)
            }
            state.running += 1
            return (Ticket(number: number), true)
        }
        if runNow { hand(job) }
        return ticket
    }

    /// Raises a waiting job's priority to `priority` (never lowers it); a job that runs already is left alone.
    func raise(_ ticket: Ticket, to priority: TaskPriority) {
        state.withLock { state in
            state.waiting.raise(to: priority.rawValue) { $0.number == ticket.number }
        }
    }

    /// The priorities of the waiting jobs, in the order they were submitted (for tests).
    var waitingPriorities: [TaskPriority] {
        state.withLock { state in state.waiting.priorities.map { TaskPriority(rawValue: $0) } }
    }

    private func hand(_ job: @escaping @Sendable () -> Void) {
        pool.submit { [self] _ in
            job()
            finished()
        }
    }

    /// A job ended: its thread takes the next waiting job, or frees.
    private func finished() {
        let next = state.withLock { state -> Waiting? in
            guard let next = state.waiting.popNext() else {
                state.running -= 1
                return nil
            }
            return next
        }
        if let next { hand(next.job) }
    }
}
