import KingfisherLocking

/// The bounded request queue: `active` requests make results at once, up to `queued` more wait their turn in
/// arrival order, and a request beyond both is turned away at once (a `503` with `Retry-After`), so a burst costs
/// memory in proportion to the limits, not to the burst.
final class RequestGate: Sendable {
    private struct State {
        var active = 0
        var waiting: [(id: Int, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextID = 0
    }

    private let activeLimit: Int
    private let queueLimit: Int
    private let state = Locked(State())

    init(active: Int, queued: Int) {
        activeLimit = active
        queueLimit = queued
    }

    /// Waits for a turn: `true` when the caller may go on (and must call ``leave()`` after), `false` when the queue
    /// is full or the caller's task was cancelled while waiting.
    func enter() async -> Bool {
        let id = state.withLock { state -> Int in
            defer { state.nextID += 1 }
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withSanitizedCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let answer: Bool? = state.withLock { state in
                    if state.active < activeLimit {
                        state.active += 1
                        return true
                    }
                    guard state.waiting.count < queueLimit, !Task.isCancelled else { return false }
                    state.waiting.append((id, continuation))
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            let removed = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiting.remove(at: index).continuation
            }
            removed?.resume(returning: false)
        }
    }

    /// Gives the turn to the longest waiter, or frees it.
    func leave() {
        let next = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard !state.waiting.isEmpty else {
                state.active -= 1
                return nil
            }
            return state.waiting.removeFirst().continuation
        }
        next?.resume(returning: true)
    }

    /// Requests making results now, and waiting.
    var load: (active: Int, queued: Int) { state.withLock { ($0.active, $0.waiting.count) } }
}
