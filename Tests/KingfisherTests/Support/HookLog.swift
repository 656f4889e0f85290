import Foundation
import KingfisherLocking

@testable import Kingfisher

/// The events a hook of the library's machinery reported (a ``Limiter``'s, a ``DiskIO``'s, a ``PeriodicWork``'s),
/// in order, for a test to wait on and assert about instead of sleeping and looking. `observer` is what to set as
/// the hook; ``mark()`` notes where the test acted, so "it started only after the release" is an index comparison.
///
/// ```swift
/// let log = HookLog<Limiter.Event>()
/// limiter.observer = log.observer
/// await log.wait { $0.contains(.released(id: 0)) }
/// ```
final class HookLog<Event: Sendable>: Sendable {
    private struct Waiter {
        let id: Int
        let satisfied: @Sendable ([Event]) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var events: [Event] = []
        var waiters: [Waiter] = []
        var nextWaiter = 0
    }

    private let state = Locked(State())

    init() {}

    /// The hook: records `event` and wakes the waits it satisfies.
    var observer: @Sendable (Event) -> Void {
        { [self] event in record(event) }
    }

    /// Every event so far, oldest first.
    var events: [Event] { state.withLock { $0.events } }

    /// How many events came so far: where the test is now, for comparing with events that come later.
    func mark() -> Int { state.withLock { $0.events.count } }

    /// Waits until the events so far satisfy `condition`, checked at once and after each new event (never by
    /// polling); `false` when `timeout` seconds passed first (a safety net, so a missing event fails the test
    /// instead of hanging it).
    @discardableResult
    func wait(timeout: TimeInterval = 30, until condition: @escaping @Sendable ([Event]) -> Bool) async -> Bool {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        let safetyNet = Task { [self] in
            try? await Task.sleep(for: .seconds(timeout))
            resume(id, with: false)
        }
        defer { safetyNet.cancel() }
        return await withSanitizedCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let done = state.withLock { state in
                if condition(state.events) { return true }
                state.waiters.append(Waiter(id: id, satisfied: condition, continuation: continuation))
                return false
            }
            if done { continuation.resume(returning: true) }
        }
    }

    /// Waits until some event satisfies `matches`; see ``wait(timeout:until:)``.
    @discardableResult
    func wait(timeout: TimeInterval = 30, for matches: @escaping @Sendable (Event) -> Bool) async -> Bool {
        await wait(timeout: timeout) { $0.contains(where: matches) }
    }

    private func record(_ event: Event) {
        let ready = state.withLock { state -> [Waiter] in
            state.events.append(event)
            let events = state.events
            let ready = state.waiters.filter { $0.satisfied(events) }
            state.waiters.removeAll { $0.satisfied(events) }
            return ready
        }
        for waiter in ready { waiter.continuation.resume(returning: true) }
    }

    private func resume(_ id: Int, with value: Bool) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        waiter?.continuation.resume(returning: value)
    }
}

extension HookLog where Event: Equatable {
    /// Where `event` first came, or `nil`.
    func index(of event: Event) -> Int? { events.firstIndex(of: event) }

    /// Waits for `event`; see ``wait(timeout:until:)``.
    @discardableResult
    func wait(timeout: TimeInterval = 30, for event: Event) async -> Bool {
        await wait(timeout: timeout) { $0.contains(event) }
    }
}

extension Limiter.Event {
    var isAdmitted: Bool {
        if case .admitted = self { true } else { false }
    }
}

extension [Limiter.Event] {
    /// The callers waiting by these events, in arrival order, with their priorities now: those that waited and
    /// have not been admitted or left since.
    var waitingWithPriorities: [(id: Int, priority: TaskPriority)] {
        var waiting: [(id: Int, priority: TaskPriority)] = []
        for event in self {
            switch event {
            case .waiting(let id, let priority): waiting.append((id, priority))
            case .raised(let id, let priority):
                if let index = waiting.firstIndex(where: { $0.id == id }) { waiting[index].priority = priority }
            case .admitted(let id, _), .left(let id): waiting.removeAll { $0.id == id }
            case .refused, .released: break
            }
        }
        return waiting
    }

    /// The callers waiting by these events, in arrival order.
    var waiting: [Int] { waitingWithPriorities.map(\.id) }
}

extension PriorityThreadPool {
    /// Its limiter's events from now on (who waits for a thread, who gets one, who leaves), recorded for a test to
    /// wait on instead of polling the lane's counts.
    func watched() -> HookLog<Limiter.Event> {
        let log = HookLog<Limiter.Event>()
        observer = log.observer
        return log
    }
}
