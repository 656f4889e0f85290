import KingfisherLocking

/// Takes one waiter out of a ``Limiter``'s queue from outside its task: for shared work whose callers are not the
/// task that waits (a downloaded body decoded for callers who each may leave). Stopping before the wait began
/// refuses the wait; stopping after the permit was given does nothing.
package final class PermitStop: Sendable {
    private struct State {
        var stopped = false
        var actions: [@Sendable () -> Void] = []
    }

    private let state = Locked(State())

    package init() {}

    /// Whether ``stop()`` was called.
    var isStopped: Bool { state.withLock { $0.stopped } }

    /// Stops the waits it guards (once; later calls do nothing).
    package func stop() {
        let actions = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.stopped else { return [] }
            state.stopped = true
            defer { state.actions = [] }
            return state.actions
        }
        for action in actions { action() }
    }

    /// Runs `action` when stopped: now, when it was stopped already.
    func onStop(_ action: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            guard !state.stopped else { return true }
            state.actions.append(action)
            return false
        }
        if now { action() }
    }
}
