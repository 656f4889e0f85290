import NIOCore

extension DiskIO {
    /// The queue's state as a value: each event returns the jobs to start once the lock is released, so the order
    /// is tested without threads.
    ///
    /// Jobs start in the order they were submitted: shared ones together, up to the limit; an exclusive one alone,
    /// once everything before it has finished, and nothing submitted after it starts before it has finished (a
    /// dispatch queue's barrier).
    struct StateMachine<Job> {
        let limit: Int
        /// Jobs not started yet, oldest first. A started job leaves it at once: its closure (and whatever it
        /// captured, a body being written) is released when the job ends, not when the queue is next compacted.
        private var waiting = CircularBuffer<(access: Access, job: Job)>()
        private var runningShared = 0
        private var runningExclusive = false

        init(limit: Int) {
            self.limit = max(1, limit)
        }

        /// How many jobs wait to start.
        var waitingCount: Int { waiting.count }

        /// How many jobs run now.
        var runningCount: Int { runningShared + (runningExclusive ? 1 : 0) }

        /// A job arrives: the jobs that start now (it, or none).
        mutating func submit(_ job: Job, _ access: Access) -> [(Job, Access)] {
            waiting.append((access, job))
            return startable()
        }

        /// A job of `access` finished: the jobs that start now.
        mutating func finish(_ access: Access) -> [(Job, Access)] {
            switch access {
            case .shared: runningShared -= 1
            case .exclusive: runningExclusive = false
            }
            return startable()
        }

        private mutating func startable() -> [(Job, Access)] {
            var started: [(Job, Access)] = []
            while let next = waiting.first, !runningExclusive {
                switch next.access {
                case .shared:
                    guard runningShared < limit else { return started }
                    runningShared += 1
                case .exclusive:
                    guard runningShared == 0 else { return started }
                    runningExclusive = true
                }
                waiting.removeFirst()
                started.append((next.job, next.access))
            }
            return started
        }
    }
}
