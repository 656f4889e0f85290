import KingfisherLocking

/// Runs a block once a number of events have arrived; later arrivals do nothing.
final class PendingCount: Sendable {
    private let state: Locked<(remaining: Int, then: (@Sendable () -> Void)?)>

    init(_ count: Int, then: @escaping @Sendable () -> Void) {
        state = Locked((count, then))
    }

    func arrive() {
        let ready = state.withLock { state -> (@Sendable () -> Void)? in
            state.remaining -= 1
            guard state.remaining <= 0 else { return nil }
            defer { state.then = nil }
            return state.then
        }
        ready?()
    }
}
