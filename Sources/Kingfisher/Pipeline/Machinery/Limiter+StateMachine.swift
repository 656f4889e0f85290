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

        /// What the machine decided about one caller: its owner's hook (see ``Limiter/Event``), recorded only
        /// while ``recordsEvents`` is set and taken with ``takeEvents()``.
        enum Event {
            /// `ID` found every permit held and waits, at `Priority`.
            case waiting(ID, Priority)
            /// `ID` holds a permit now, at once or after waiting (at the priority it had then).
            case admitted(ID, Priority)
            /// Waiting `ID` was raised to `Priority`.
            case raised(ID, Priority)
            /// `ID` left without a permit: cancelled (or stopped) while it waited or before it asked, or withdrawn.
            case left(ID)
            /// `ID` found the queue full.
            case refused(ID)
            /// `ID` gave its permit back.
            case released(ID)
        }

        private(set) var limit: Int
        /// How many may wait; one more is refused at once.
        let maxWaiting: Int
        private var holders: Set<ID> = []
        private var waiting = PriorityQueue<Priority, (id: ID, waiter: Waiter)>()
        /// Callers cancelled before they asked (a cancellation handler can run before the body it guards).
        private var cancelledEarly: Set<ID> = []
        /// Whether decisions are recorded as ``Event``s; off by default (nothing is recorded, nothing allocated).
        var recordsEvents = false {
            didSet { if !recordsEvents { events = [] } }
        }
        private var events: [Event] = []

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
            if cancelledEarly.remove(id) != nil {
                record(.left(id))
                return .cancel(waiter)
            }
            guard holders.count < limit else {
                guard waiting.count < maxWaiting else {
                    record(.refused(id))
                    return .refuse(waiter)
                }
                waiting.append((id, waiter), priority: priority)
                record(.waiting(id, priority))
                return .none
            }
            holders.insert(id)
            record(.admitted(id, priority))
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
            guard let removed = waiting.remove(where: { $0.id == id }) else { return nil }
            record(.left(id))
            return removed.waiter
        }

        /// `id` gives its permit back: the next waiter (highest priority, earliest among equals) takes it, unless
        /// a lowered limit still has as many holders as it allows.
        mutating func release(_ id: ID) -> Action {
            guard holders.remove(id) != nil else { return .none }
            record(.released(id))
            guard holders.count < limit, let next = admitNext() else { return .none }
            return .resume(next)
        }

        /// Lets `limit` (at least one) hold a permit from now on: a raise hands the freed permits to the next waiters,
        /// which the caller resumes; a lowered limit takes effect as holders give theirs back.
        mutating func changeLimit(to limit: Int) -> [Waiter] {
            self.limit = max(1, limit)
            var admitted: [Waiter] = []
            while holders.count < self.limit, let next = admitNext() {
                admitted.append(next)
            }
            return admitted
        }

        /// Raises a waiting `id` to `priority` (never lowers it).
        mutating func raise(_ id: ID, to priority: Priority) {
            if waiting.raise(to: priority, where: { $0.id == id }) { record(.raised(id, priority)) }
        }

        /// The events recorded since the last call, oldest first; none unless ``recordsEvents``.
        mutating func takeEvents() -> [Event] {
            guard !events.isEmpty else { return [] }
            defer { events = [] }
            return events
        }

        /// The next waiter (highest priority, earliest among equals) takes a permit.
        private mutating func admitNext() -> Waiter? {
            guard let (priority, next) = waiting.popNextWithPriority() else { return nil }
            holders.insert(next.id)
            record(.admitted(next.id, priority))
            return next.waiter
        }

        private mutating func record(_ event: @autoclosure () -> Event) {
            if recordsEvents { events.append(event()) }
        }
    }
}
