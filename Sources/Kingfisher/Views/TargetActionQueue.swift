import KingfisherLocking

/// Runs one target's actions one at a time, in the order they were submitted, without a lock held while one runs
/// (so an action may call back into Kingfisher for the same target).
///
/// An action submitted while none runs runs at once, on the submitting thread. One submitted while another runs
/// (on another thread, or from inside that action) is queued, and the thread running actions runs it right after.
/// Nothing ever blocks or waits for a main loop.
///
/// A queue made with a `perform` function (a target bound to a thread, such as a GTK view) hands every action to
/// it first, and runs the actions where `perform` runs them; `perform` must keep their order.
final class TargetActionQueue: Sendable {
    typealias Action = @Sendable () -> Void

    private struct State {
        var isRunning = false
        var pending: [Action] = []
    }

    private let state = Locked(State())
    private let perform: (@Sendable (@escaping Action) -> Void)?

    init(perform: (@Sendable (@escaping Action) -> Void)? = nil) {
        self.perform = perform
    }

    /// Whether actions run where a `perform` function of the target's runs them.
    var isBound: Bool { perform != nil }

    func submit(_ action: @escaping Action) {
        guard let perform else {
            run(action)
            return
        }
        perform { [self] in run(action) }
    }

    private func run(_ action: @escaping Action) {
        let runsNow = state.withLock { state in
            if state.isRunning {
                state.pending.append(action)
                return false
            }
            state.isRunning = true
            return true
        }
        guard runsNow else { return }
        var next: Action? = action
        while let current = next {
            current()
            next = state.withLock { state -> Action? in
                if state.pending.isEmpty {
                    state.isRunning = false
                    return nil
                }
                return state.pending.removeFirst()
            }
        }
    }
}
