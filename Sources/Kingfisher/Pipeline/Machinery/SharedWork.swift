import Dispatch
import KingfisherLocking

/// Work that concurrent callers asking for the same key share: the first caller's request starts it, callers
/// arriving while it runs wait for the same value, and the key is free again once the value is handed out.
///
/// A caller whose task is cancelled stops waiting at once (it gets `nil`); the work itself is cancelled only when
/// every waiter has gone (work begun by ``start(for:priority:_:)`` runs to its end regardless). The work runs in a
/// task of its own at the priority of the caller that started it, escalated to a joining caller's priority when
/// that is higher, and again whenever a waiting caller's task is escalated: shared work runs at the highest
/// priority of its waiters.
///
/// A caller may join in two steps (``join(_:guest:_:)``, then ``Ticket/value()``): the join is synchronous, so a
/// callback API joins before it returns, and the caller waits later. A caller brings a guest, what the work may
/// want to know of each waiter while it runs (a progress block, a priority): the work sees the guests of the
/// waiters still there through its ``Run``.
package final class SharedWork<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// One run of the work for a key, as the work and its waiters see it: the guests of the waiters still there,
    /// and one value attached to the run (a handle its callers share, made by the first that asks).
    package final class Run: Sendable {
        private struct State {
            var guests: [(id: Int, guest: any Sendable)] = []
        }

        private let state = Locked(State())
        private let attached = Locked<(any Sendable)?>(nil)

        fileprivate init() {}

        /// The guests of the waiters still there, in the order they joined (those of another type left out).
        package func guests<Guest>(as type: Guest.Type = Guest.self) -> [Guest] {
            state.withLock { $0.guests.compactMap { $0.guest as? Guest } }
        }

        /// What is attached to the run: made by `make` for the first caller that asks, the same for every later
        /// one. `make` runs under the attachment's lock: it must not ask for this run's attachment.
        package func attachment<Attached: Sendable>(orMake make: () -> Attached) -> Attached {
            attached.withLock { attached in
                if let existing = attached as? Attached { return existing }
                let made = make()
                attached = made
                return made
            }
        }

        /// What is attached to the run, if something of that type is.
        package func attachment<Attached: Sendable>(as type: Attached.Type = Attached.self) -> Attached? {
            attached.withLock { $0 as? Attached }
        }

        fileprivate func add(_ id: Int, _ guest: any Sendable) {
            state.withLock { $0.guests.append((id, guest)) }
        }

        fileprivate func remove(_ id: Int) {
            state.withLock { $0.guests.removeAll { $0.id == id } }
        }

        /// The run ended: it keeps no guest (a guest that refers back to the run must not keep it alive).
        fileprivate func clear() {
            state.withLock { $0.guests = [] }
        }
    }

    /// One caller's place on a run: the value it will get, awaited once with ``value()``, or given up with
    /// ``leave()``.
    package final class Ticket: Sendable {
        private enum Place {
            /// Joined; nobody awaits the value yet.
            case joined
            /// Awaited.
            case waiting(CheckedContinuation<Value?, Never>)
            /// Handed over (`nil`: the caller left); not awaited yet.
            case delivered(Value?)
            /// Taken by ``value()``.
            case taken
        }

        /// The run the caller joined.
        package let run: Run
        /// Whether this caller's join started the run.
        package let isNew: Bool
        fileprivate let key: Key
        fileprivate let generation: Int
        fileprivate let id: Int
        private let owner: SharedWork
        private let place = Locked(Place.joined)

        fileprivate init(owner: SharedWork, key: Key, generation: Int, id: Int, run: Run, isNew: Bool) {
            self.owner = owner
            self.key = key
            self.generation = generation
            self.id = id
            self.run = run
            self.isNew = isNew
        }

        /// The value of the work, once it is there; `nil` when the caller left first (its task cancelled while it
        /// waits here, or ``leave()``). Awaited once.
        package func value() async -> Value? {
            await withTaskPriorityEscalationHandler {
                await withTaskCancellationHandler {
                    await withSanitizedCheckedContinuation { continuation in
                        let ready = place.withLock { place -> Value?? in
                            switch place {
                            case .delivered(let value):
                                place = .taken
                                return .some(value)
                            case .joined:
                                place = .waiting(continuation)
                                return nil
                            case .waiting, .taken:
                                preconditionFailure("[Kingfisher] A shared-work ticket is awaited once.")
                            }
                        }
                        if let ready { continuation.resume(returning: ready) }
                        if Task.isCancelled { leave() }
                    }
                } onCancel: {
                    leave()
                }
            } onPriorityEscalated: { [self] _, raised in
                owner.escalate(key, generation, to: raised)
            }
        }

        /// Stops waiting: ``value()`` gives `nil`, and the work is cancelled when this was its last waiter.
        /// Nothing once the value was handed over.
        package func leave() {
            owner.leave(key, generation, id)
        }

        /// Hands over `value` (the first time only).
        fileprivate func deliver(_ value: Value?) {
            let waiting = place.withLock { place -> CheckedContinuation<Value?, Never>? in
                switch place {
                case .joined:
                    place = .delivered(value)
                    return nil
                case .waiting(let continuation):
                    place = .taken
                    return continuation
                case .delivered, .taken:
                    return nil
                }
            }
            waiting?.resume(returning: value)
        }
    }

    private struct Entry {
        /// Which start this is: a value of cancelled work never reaches a later start's waiters.
        let generation: Int
        let run: Run
        var work: Task<Void, Never>?
        /// The highest priority of the callers that asked for it.
        var priority: TaskPriority
        var waiters: [Int: Ticket] = [:]
        /// Started by ``SharedWork/start(for:priority:_:)``: it runs to its end with or without waiters.
        var isKept = false
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        /// The last waiters of cancelled work, by its generation, until it ends or their grace runs out.
        var draining: [Int: Ticket] = [:]
        var nextWaiter = 0
        /// How many times work was started, for tests and metrics.
        var started = 0
    }

    private let state = Locked(State())
    /// Called each time a caller joins work that runs already (for metrics).
    private let joined: (@Sendable () -> Void)?
    /// How long the caller whose leaving cancelled the work waits for it to end; `nil`: not at all.
    private let drainGrace: Duration?

    /// - Parameter drainGrace: when set, the caller whose leaving cancels the work waits for the cancelled work to
    ///   end (it still gets `nil`), at most this long, so work that honours cancellation has stopped when that
    ///   caller hears (a provider's `data()` has thrown). Callers arriving meanwhile start new work.
    package init(joined: (@Sendable () -> Void)? = nil, drainGrace: Duration? = nil) {
        self.joined = joined
        self.drainGrace = drainGrace
    }

    /// How many times work has been started (not joined).
    package var startedCount: Int { state.withLock { $0.started } }

    /// How many callers wait now, over every key.
    package var waitingCount: Int { state.withLock { $0.entries.values.reduce(0) { $0 + $1.waiters.count } } }

    /// The value of the work for `key`: joined when it runs already, otherwise started with `work`. `nil` when the
    /// calling task was cancelled before the value arrived.
    package func value(for key: Key, _ work: @escaping @Sendable () async -> Value) async -> Value? {
        await join(key, guest: (), { _ in await work() }).value()
    }

    /// Joins the work for `key` as a waiter bringing `guest`, starting it with `work` when it does not run: at
    /// once, without waiting for the value (``Ticket/value()`` waits). The work runs at the calling task's
    /// priority, or is raised to it.
    package func join<Guest: Sendable>(
        _ key: Key, guest: Guest, _ work: @escaping @Sendable (Run) async -> Value
    ) -> Ticket {
        let priority = Task.currentPriority
        let (ticket, escalate) = state.withLock { state -> (Ticket, Task<Void, Never>?) in
            let id = state.nextWaiter
            state.nextWaiter += 1
            if var entry = state.entries[key] {
                let ticket = Ticket(
                    owner: self, key: key, generation: entry.generation, id: id, run: entry.run, isNew: false)
                entry.waiters[id] = ticket
                entry.run.add(id, guest)
                let raises = priority > entry.priority
                entry.priority = max(entry.priority, priority)
                state.entries[key] = entry
                return (ticket, raises ? entry.work : nil)
            }
            state.started += 1
            let run = Run()
            let ticket = Ticket(owner: self, key: key, generation: state.started, id: id, run: run, isNew: true)
            run.add(id, guest)
            state.entries[key] = Entry(generation: state.started, run: run, priority: priority, waiters: [id: ticket])
            return (ticket, nil)
        }
        if ticket.isNew {
            launch(key, ticket.generation, ticket.run, priority: priority, work)
        } else {
            joined?()
            escalate?.escalatePriority(to: priority)
        }
        return ticket
    }

    /// Starts the work for `key` unless it runs already, and lets it run to its end whether or not anyone waits
    /// for it (a background revalidation): callers of ``value(for:_:)`` for `key` meanwhile join it.
    package func start(
        for key: Key, priority: TaskPriority = .utility, _ work: @escaping @Sendable () async -> Value
    ) {
        let started = state.withLock { state -> (Int, Run)? in
            if state.entries[key] != nil {
                state.entries[key]?.isKept = true
                return nil
            }
            state.started += 1
            let run = Run()
            state.entries[key] = Entry(generation: state.started, run: run, priority: priority, isKept: true)
            return (state.started, run)
        }
        if let started { launch(key, started.0, started.1, priority: priority) { _ in await work() } }
    }

    /// Runs started work in a task of its own and records it, so that a joining caller can raise its priority and
    /// the last waiter leaving can cancel it.
    private func launch(
        _ key: Key, _ generation: Int, _ run: Run, priority: TaskPriority,
        _ work: @escaping @Sendable (Run) async -> Value
    ) {
        let task = Task(priority: priority) { [self] in finish(key, generation, with: await work(run)) }
        let attached = state.withLock { state -> TaskPriority? in
            guard state.entries[key]?.generation == generation else { return nil }
            state.entries[key]?.work = task
            return state.entries[key]?.priority
        }
        if let attached {
            // A caller of higher priority joined before the task was recorded.
            if attached > priority { task.escalatePriority(to: attached) }
        } else {
            // Every waiter left before the work was recorded.
            task.cancel()
        }
    }

    private func finish(_ key: Key, _ generation: Int, with value: Value) {
        let (entry, drained) = state.withLock { state -> (Entry?, Ticket?) in
            // Cancelled work ends: the waiter whose leaving cancelled it hears now.
            if let drained = state.draining.removeValue(forKey: generation) { return (nil, drained) }
            guard let entry = state.entries[key], entry.generation == generation else { return (nil, nil) }
            state.entries[key] = nil
            return (entry, nil)
        }
        drained?.deliver(nil)
        guard let entry else { return }
        entry.run.clear()
        for waiter in entry.waiters.values { waiter.deliver(value) }
    }

    /// A waiting caller's task was escalated: the work follows.
    private func escalate(_ key: Key, _ generation: Int, to priority: TaskPriority) {
        let work = state.withLock { state -> Task<Void, Never>? in
            guard var entry = state.entries[key], entry.generation == generation, priority > entry.priority else {
                return nil
            }
            entry.priority = priority
            state.entries[key] = entry
            return entry.work
        }
        work?.escalatePriority(to: priority)
    }

    /// A waiter leaves; the work is cancelled when it was the last. With a ``drainGrace``, that last waiter hears
    /// when the work has ended, or when the grace has run out.
    private func leave(_ key: Key, _ generation: Int, _ id: Int) {
        let (waiter, cancelled, draining) = state.withLock { state -> (Ticket?, Task<Void, Never>?, Bool) in
            guard var entry = state.entries[key], entry.generation == generation,
                let waiter = entry.waiters.removeValue(forKey: id)
            else { return (nil, nil, false) }
            entry.run.remove(id)
            guard entry.waiters.isEmpty, !entry.isKept else {
                state.entries[key] = entry
                return (waiter, nil, false)
            }
            state.entries[key] = nil
            entry.run.clear()
            // Work not begun yet has nothing to wait for.
            guard drainGrace != nil, entry.work != nil else { return (waiter, entry.work, false) }
            state.draining[generation] = waiter
            return (waiter, entry.work, true)
        }
        cancelled?.cancel()
        guard draining, let drainGrace else {
            waiter?.deliver(nil)
            return
        }
        let nanoseconds = Int(drainGrace / .nanoseconds(1))
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [self] in
            state.withLock { $0.draining.removeValue(forKey: generation) }?.deliver(nil)
        }
    }
}
