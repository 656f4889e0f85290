import KingfisherLocking

/// Bounds how much of one kind of work runs at once (decodes, encodes, disk I/O...): at most ``limit`` callers
/// hold a permit; the others wait, the highest task priority first and in arrival order among equals. A waiter
/// whose task is cancelled leaves the queue at once (its work never runs); a waiter whose task is escalated moves
/// up with it, so shared work that a more urgent caller joined overtakes what was queued before it.
///
/// ```swift
/// let decodes = Limiter(limit: 2)
/// let image = try await decodes.withPermit { try decode(data) }
/// ```
package final class Limiter: Sendable {
    private typealias Waiter = CheckedContinuation<Void, any Error>

    private struct State {
        var machine: StateMachine<Int, UInt8, Waiter>
        var nextID = 0
        var outbox = EventOutbox<Event>()

        /// Under the lock, after the machine decided: its events, for the thread to deliver once it has let the
        /// lock go (`nil`, at the cost of a check, when nobody observes).
        mutating func events() -> EventOutbox<Event>.Batch? {
            guard outbox.isObserved else { return nil }
            for event in machine.takeEvents() { outbox.post(Event(event)) }
            return outbox.claim()
        }
    }

    private let state: Locked<State>

    /// What a caller gets when it finds every permit held and ``maxWaiting`` callers waiting already.
    package struct QueueFull: Error {}

    /// A limiter that lets `limit` callers (at least one) hold a permit at once, and up to `maxWaiting` wait for
    /// one (unbounded by default); a caller beyond both is refused at once with ``QueueFull``.
    package init(limit: Int, maxWaiting: Int = .max) {
        state = Locked(State(machine: StateMachine(limit: limit, maxWaiting: maxWaiting)))
    }

    /// How many callers it lets run at once. Raising it lets waiters run at once; lowering it lets the callers
    /// that hold a permit finish.
    package var limit: Int {
        get { state.withLock { $0.machine.limit } }
        set {
            let (admitted, events) = state.withLock { state in
                (state.machine.changeLimit(to: newValue), state.events())
            }
            deliverEvents(events)
            for waiter in admitted { waiter.resume() }
        }
    }

    /// Who is told each decision (``Event``), after the limiter's lock and in the order decided; `nil` by default,
    /// when nothing is recorded. Set it before the callers it is to see come (a test's hook).
    package var observer: (@Sendable (Event) -> Void)? {
        get { state.withLock { $0.outbox.observer } }
        set {
            state.withLock { state in
                state.outbox.observer = newValue
                state.machine.recordsEvents = newValue != nil
            }
        }
    }

    /// How many callers hold a permit now.
    package var holdingCount: Int { state.withLock { $0.machine.holdingCount } }

    /// How many callers wait for a permit now.
    package var waitingCount: Int { state.withLock { $0.machine.waitingCount } }

    /// The priorities of the waiting callers, in arrival order.
    package var waitingPriorities: [TaskPriority] {
        state.withLock { $0.machine.waitingPriorities.map { TaskPriority(rawValue: $0) } }
    }

    /// Runs `body` once a permit is free, and gives the permit back when it returns. A caller whose task is
    /// cancelled while it waits leaves the queue: `body` does not run.
    /// - Throws: `CancellationError` when the calling task was cancelled before it got a permit; ``QueueFull`` when
    ///   it found the queue full; or what `body` throws.
    package func withPermit<T: Sendable, Failure: Error>(
        _ body: () async throws(Failure) -> T
    ) async throws -> T {
        let permit = try await acquire()
        defer { permit.release() }
        return try await body()
    }

    /// A permit held until ``release()`` (called once): for work that outlives the wait of the caller who asked
    /// for it (a decode its caller stopped waiting for keeps its thread, and its permit, until it ends).
    package struct Permit: Sendable {
        fileprivate let limiter: Limiter
        /// The caller's number in the limiter's ``Event``s.
        package let id: Int

        /// Gives the permit back; the next waiter takes it.
        package func release() { limiter.release(id) }
    }

    /// Waits for a permit, as ``withPermit(_:)`` does, and hands it over: the caller releases it.
    /// - Throws: `CancellationError` when the calling task was cancelled before it got a permit; ``QueueFull`` when
    ///   it found the queue full.
    package func acquire() async throws -> Permit {
        let id = nextID()
        let leave: @Sendable () -> Void = { [self] in
            let (action, events) = state.withLock { ($0.machine.cancel(id), $0.events()) }
            deliverEvents(events)
            run(action, for: nil)
        }
        try await withTaskPriorityEscalationHandler {
            try await withTaskCancellationHandler {
                try await wait(id)
            } onCancel: {
                leave()
            }
        } onPriorityEscalated: { _, raised in
            raise(id, to: raised)
        }
        return Permit(limiter: self, id: id)
    }

    /// Runs `body` once a permit is free, and gives the permit back when it returns, whether or not the calling
    /// task is cancelled meanwhile: for work that must run once asked for (an encode for a cache write).
    package func withPermitIgnoringCancellation<T: Sendable, Failure: Error>(
        _ body: () async throws(Failure) -> T
    ) async throws(Failure) -> T {
        assert(state.withLock { $0.machine.maxWaiting } == .max, "a bounded queue may refuse: use withPermit")
        let id = nextID()
        await withTaskPriorityEscalationHandler {
            // Nothing but a cancellation handler (or a full queue, which an unbounded one never is) refuses a
            // waiter, and none is installed here.
            try? await wait(id)
        } onPriorityEscalated: { _, raised in
            raise(id, to: raised)
        }
        defer { release(id) }
        return try await body()
    }

    private func nextID() -> Int {
        state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
    }

    /// Waits until `id` holds a permit (or is refused as cancelled).
    private func wait(_ id: Int) async throws {
        try await withSanitizedCheckedThrowingContinuation { (waiter: Waiter) in
            let priority = Task.currentPriority.rawValue
            let (action, events) = state.withLock { state in
                (state.machine.acquire(id, priority: priority, waiter: waiter), state.events())
            }
            deliverEvents(events)
            run(action, for: waiter)
        }
    }

    /// A waiting `id`'s task was escalated: it moves up with it.
    private func raise(_ id: Int, to priority: TaskPriority) {
        let events = state.withLock { state in
            state.machine.raise(id, to: priority.rawValue)
            return state.events()
        }
        deliverEvents(events)
    }

    private func release(_ id: Int) {
        let (action, events) = state.withLock { ($0.machine.release(id), $0.events()) }
        deliverEvents(events)
        run(action, for: nil)
    }

    /// Tells the observer, outside the lock, before the decision takes effect (unless another thread is telling
    /// it already: then that thread does, in order).
    private func deliverEvents(_ batch: EventOutbox<Event>.Batch?) {
        EventOutbox.deliver(batch) { state.withLock { $0.outbox.next() } }
    }

    private func run(_ action: StateMachine<Int, UInt8, Waiter>.Action, for caller: Waiter?) {
        switch action {
        case .none: break
        case .run: caller?.resume()
        case .resume(let waiter): waiter.resume()
        case .cancel(let waiter): waiter.resume(throwing: CancellationError())
        case .refuse(let waiter): waiter.resume(throwing: QueueFull())
        }
    }
}

extension Limiter {
    /// What a limiter decided about one caller, told to its ``Limiter/observer``: a test asserts "the second decode
    /// waits behind the first" as `.waiting` for it, and "it ran only after the first was done" as its `.admitted`
    /// coming after the first's `.released`. `id` numbers the callers in arrival order (``Permit/id``).
    package enum Event: Sendable, Equatable {
        /// The caller found every permit held and waits, at `priority`.
        case waiting(id: Int, priority: TaskPriority)
        /// The caller holds a permit now, at once or after waiting, at the priority it had then.
        case admitted(id: Int, priority: TaskPriority)
        /// The waiting caller's task was escalated: it waits at `priority` now.
        case raised(id: Int, priority: TaskPriority)
        /// The caller left without a permit: its task was cancelled before it got one.
        case left(id: Int)
        /// The caller found the queue full (``QueueFull``).
        case refused(id: Int)
        /// The caller gave its permit back.
        case released(id: Int)

        /// The caller it is about.
        package var id: Int {
            switch self {
            case .waiting(let id, _), .admitted(let id, _), .raised(let id, _), .left(let id), .refused(let id),
                .released(let id):
                id
            }
        }

        init<Waiter>(_ event: StateMachine<Int, UInt8, Waiter>.Event) {
            switch event {
            case .waiting(let id, let priority): self = .waiting(id: id, priority: TaskPriority(rawValue: priority))
            case .admitted(let id, let priority): self = .admitted(id: id, priority: TaskPriority(rawValue: priority))
            case .raised(let id, let priority): self = .raised(id: id, priority: TaskPriority(rawValue: priority))
            case .left(let id): self = .left(id: id)
            case .refused(let id): self = .refused(id: id)
            case .released(let id): self = .released(id: id)
            }
        }
    }
}
