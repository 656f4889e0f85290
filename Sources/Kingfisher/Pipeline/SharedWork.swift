import Dispatch
import KingfisherLocking

/// Work that concurrent callers asking for the same key share: the first caller's request starts it, callers
/// arriving while it runs wait for the same value, and the key is free again once the value is handed out.
///
/// A caller whose task is cancelled stops waiting at once (it gets `nil`); the work itself is cancelled only when
/// every waiter has gone (work begun by ``start(for:priority:_:)`` runs to its end regardless). The work runs in a
/// task of its own at the priority of the caller that started it, escalated to a joining caller's priority when
/// that is higher: shared work runs at the highest priority of its waiters.
///
/// Made with a `drainGrace`, the caller whose leaving cancels the work is the exception: it waits for the
/// cancelled work to end (its value is dropped: the caller still gets `nil`), at most `drainGrace`, so work that
/// honours cancellation has stopped when that caller hears (a provider's `data()` has thrown). Callers arriving
/// meanwhile start new work.
package final class SharedWork<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry {
        /// Which start this is: a value of cancelled work never reaches a later start's waiters.
        let generation: Int
        var work: Task<Void, Never>?
        /// The highest priority of the callers that asked for it.
        var priority: TaskPriority
        var waiters: [Int: CheckedContinuation<Value?, Never>] = [:]
        /// Started by ``SharedWork/start(for:priority:_:)``: it runs to its end with or without waiters.
        var isKept = false
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        /// The last waiters of cancelled work, by its generation, until it ends or their grace runs out.
        var draining: [Int: CheckedContinuation<Value?, Never>] = [:]
        var nextWaiter = 0
        /// How many times work was started, for tests and metrics.
        var started = 0
    }

    private let state = Locked(State())
    /// Called each time a caller joins work that runs already (for metrics).
    private let joined: (@Sendable () -> Void)?
    /// How long the caller whose leaving cancelled the work waits for it to end; `nil`: not at all.
    private let drainGrace: Duration?

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
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        let priority = Task.currentPriority
        return await withTaskCancellationHandler {
            await withSanitizedCheckedContinuation { continuation in
                let (generation, escalate) = state.withLock { state -> (Int?, Task<Void, Never>?) in
                    if var entry = state.entries[key] {
                        entry.waiters[id] = continuation
                        let raises = priority > entry.priority
                        entry.priority = max(entry.priority, priority)
                        state.entries[key] = entry
                        return (nil, raises ? entry.work : nil)
                    }
                    state.started += 1
                    state.entries[key] = Entry(
                        generation: state.started, priority: priority, waiters: [id: continuation])
                    return (state.started, nil)
                }
                if let generation {
                    launch(key, generation, priority: priority, work)
                } else {
                    joined?()
                    escalate?.escalatePriority(to: priority)
                }
                if Task.isCancelled { leave(key, id) }
            }
        } onCancel: {
            leave(key, id)
        }
    }

    /// Starts the work for `key` unless it runs already, and lets it run to its end whether or not anyone waits
    /// for it (a background revalidation): callers of ``value(for:_:)`` for `key` meanwhile join it.
    package func start(
        for key: Key, priority: TaskPriority = .utility, _ work: @escaping @Sendable () async -> Value
    ) {
        let generation = state.withLock { state -> Int? in
            if state.entries[key] != nil {
                state.entries[key]?.isKept = true
                return nil
            }
            state.started += 1
            state.entries[key] = Entry(generation: state.started, priority: priority, isKept: true)
            return state.started
        }
        if let generation { launch(key, generation, priority: priority, work) }
    }

    /// Runs started work in a task of its own and records it, so that a joining caller can raise its priority and
    /// the last waiter leaving can cancel it.
    private func launch(
        _ key: Key, _ generation: Int, priority: TaskPriority, _ work: @escaping @Sendable () async -> Value
    ) {
        let task = Task(priority: priority) { [self] in finish(key, generation, with: await work()) }
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
        let (waiters, drained) = state.withLock {
            state -> ([CheckedContinuation<Value?, Never>], CheckedContinuation<Value?, Never>?) in
            // Cancelled work ends: the waiter whose leaving cancelled it hears now.
            if let drained = state.draining.removeValue(forKey: generation) { return ([], drained) }
            guard let entry = state.entries[key], entry.generation == generation else { return ([], nil) }
            state.entries[key] = nil
            return (Array(entry.waiters.values), nil)
        }
        for waiter in waiters { waiter.resume(returning: value) }
        drained?.resume(returning: nil)
    }

    /// A waiter leaves; the work is cancelled when it was the last. With a ``drainGrace``, that last waiter hears
    /// when the work has ended, or when the grace has run out.
    private func leave(_ key: Key, _ id: Int) {
        let (waiter, cancelled, drained) = state.withLock {
            state -> (CheckedContinuation<Value?, Never>?, Task<Void, Never>?, Int?) in
            guard let waiter = state.entries[key]?.waiters.removeValue(forKey: id) else { return (nil, nil, nil) }
            guard let entry = state.entries[key], entry.waiters.isEmpty, !entry.isKept else {
                return (waiter, nil, nil)
            }
            state.entries[key] = nil
            guard drainGrace != nil else { return (waiter, entry.work, nil) }
            state.draining[entry.generation] = waiter
            return (nil, entry.work, entry.generation)
        }
        waiter?.resume(returning: nil)
        cancelled?.cancel()
        if let drained, let drainGrace {
            let nanoseconds = Int(drainGrace / .nanoseconds(1))
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [self] in
                state.withLock { $0.draining.removeValue(forKey: drained) }?.resume(returning: nil)
            }
        }
    }
}
