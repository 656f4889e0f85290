extension DiskIO {
    /// The queue's state as a value: each event returns the jobs to start once the lock is released, so the order
    /// is tested without threads.
    ///
    /// Jobs start in the order they were submitted: shared ones together, up to the limit; an exclusive one alone,
    /// once everything before it has finished, and nothing submitted after it starts before it has finished (a
    /// dispatch queue's barrier).
    struct StateMachine<Job> {
        let limit: Int
        private var waiting: [(access: Access, job: Job)] = []
        private var head = 0
        private var runningShared = 0
        private var runningExclusive = false

        init(limit: Int) {
            self.limit = max(1, limit)
        }

        /// How many jobs wait to start.
        var waitingCount: Int { waiting.count - head }

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
            while head < waiting.count, !runningExclusive {
                let next = waiting[head]
                switch next.access {
                case .shared:
                    guard runningShared < limit else { return compacted(started) }
                    runningShared += 1
                case .exclusive:
                    guard runningShared == 0 else { return compacted(started) }
                    runningExclusive = true
                }
                head += 1
                started.append((next.job, next.access))
            }
            return compacted(started)
        }

        /// Drops the started jobs from the front of the queue now and then, so it does not grow without bound.
        private mutating func compacted(_ started: [(Job, Access)]) -> [(Job, Access)] {
            if head > 64, head * 2 > waiting.count {
                waiting.removeFirst(head)
                head = 0
            }
            return started
        }
    }
}
