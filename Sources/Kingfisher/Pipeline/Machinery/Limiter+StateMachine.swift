extension Limiter {
    /// The limiter's state as a value: each event returns what to do once the lock is released (resume a waiter,
    /// or nothing), so the state is tested without tasks, and no continuation is resumed under the lock.
    ///
    /// ``Limiter`` runs it with continuations as waiters and task priorities; the downloader runs it under its own
    /// lock, with the queued HTTP tasks as waiters and Kingfisher's `downloadPriority` (the limit on connections).
    struct StateMachine<ID: Hashable & Comparable, Priority: Comparable, Waiter> {
        /// What to do after the lock.
        enum Action {
            /// Nothing: the caller waits, or nobody waits.
            case none
            /// The caller holds a permit now and runs.
            case run
            /// This waiter holds a permit now: resume it.
            case resume(Waiter)
            /// This waiter will not get a permit (it was cancelled): resume it with cancellation.
            case cancel(Waiter)
            /// This waiter found the queue full: resume it with ``Limiter/QueueFull``.
            case refuse(Waiter)
        }

        private(set) var limit: Int
        /// How many may wait; one more is refused at once.
        let maxWaiting: Int
        private var holders: Set<ID> = []
        private var waiting = PriorityQueue<Priority, (id: ID, waiter: Waiter)>()
        /// Callers cancelled before they asked (a cancellation handler can run before the body it guards).
        private var cancelledEarly: Set<ID> = []

        init(limit: Int, maxWaiting: Int = .max) {
            self.limit = max(1, limit)
            self.maxWaiting = max(0, maxWaiting)
        }

        /// How many hold a permit.
        var holdingCount: Int { holders.count }

        /// How many wait for a permit.
        var waitingCount: Int { waiting.count }

        /// The priorities of the waiters, in arrival order.
        var waitingPriorities: [Priority] { waiting.priorities }

        /// `id` asks for a permit at `priority`: it runs at once when one is free, otherwise it waits, unless its
        /// cancellation came first or the queue is full.
        mutating func acquire(_ id: ID, priority: Priority, waiter: Waiter) -> Action {
            if cancelledEarly.remove(id) != nil { return .cancel(waiter) }
            guard holders.count < limit else {
                guard waiting.count < maxWaiting else { return .refuse(waiter) }
                waiting.append((id, waiter), priority: priority)
                return .none
            }
            holders.insert(id)
            return .run
        }

        /// `id` was cancelled: it leaves the queue if it waits there, it is refused when it asks later, and a
        /// holder keeps its permit (what it does with the cancellation is its own business).
        mutating func cancel(_ id: ID) -> Action {
            if let removed = withdraw(id) { return .cancel(removed) }
            if !holders.contains(id) {
                cancelledEarly.insert(id)
                // A cancellation that lost a race with the end of the wait (the holder already gave its permit
                // back) leaves an id no request will claim; a real early one is claimed at once. Keep the newest.
                if cancelledEarly.count > 4096 {
                    cancelledEarly = Set(cancelledEarly.sorted().suffix(2048))
                }
            }
            return .none
        }

        /// Takes a waiting `id` out of the queue, and returns it; nothing else changes (an `id` that does not wait
        /// is not remembered, as ``cancel(_:)`` remembers it).
        mutating func withdraw(_ id: ID) -> Waiter? {
            waiting.remove(where: { $0.id == id })?.waiter
        }

        /// `id` gives its permit back: the next waiter (highest priority, earliest among equals) takes it, unless
        /// a lowered limit still has as many holders as it allows.
        mutating func release(_ id: ID) -> Action {
            guard holders.remove(id) != nil, holders.count < limit, let next = waiting.popNext() else { return .none }
            holders.insert(next.id)
            return .resume(next.waiter)
        }

        /// Lets `limit` (at least one) hold a permit from now on: a raise hands the freed permits to the next waiters,
        /// which the caller resumes; a lowered limit takes effect as holders give theirs back.
        mutating func changeLimit(to limit: Int) -> [Waiter] {
            self.limit = max(1, limit)
            var admitted: [Waiter] = []
            while holders.count < self.limit, let next = waiting.popNext() {
                holders.insert(next.id)
                admitted.append(next.waiter)
            }
            return admitted
        }

        /// Raises a waiting `id` to `priority` (never lowers it).
        mutating func raise(_ id: ID, to priority: Priority) {
            waiting.raise(to: priority) { $0.id == id }
        }
    }
}
