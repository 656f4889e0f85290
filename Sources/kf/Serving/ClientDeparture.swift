import KingfisherLocking

/// Whether a connection's client has gone: it closed its side (a `FIN`; nginx takes that as the client giving up,
/// its `499`) or the connection closed. ``ConnectionWatch`` tells it from the event loop; the task handling the
/// connection waits for it and then cancels the request in flight, so that work nobody waits for stops (the library
/// stops shared work once its last waiter has left).
final class ClientDeparture: Sendable {
    private struct State {
        var departed = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Locked(State())

    /// The client has gone (once; later calls do nothing).
    func depart() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.departed else { return nil }
            state.departed = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Returns once the client has gone, or when the calling task is cancelled. One caller at a time.
    func wait() async {
        await withTaskCancellationHandler {
            await withSanitizedCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    guard !state.departed, !Task.isCancelled else { return true }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}
