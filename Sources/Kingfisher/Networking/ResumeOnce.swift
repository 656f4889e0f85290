import KingfisherLocking

/// Hands a value to a continuation the first time only, so a user's completion called twice cannot crash.
final class ResumeOnce<T: Sendable>: Sendable {
    private let continuation: Locked<CheckedContinuation<T, Never>?>

    init(_ continuation: CheckedContinuation<T, Never>) {
        self.continuation = Locked(continuation)
    }

    func resume(returning value: T) {
        let pending = continuation.withLock { stored in
            defer { stored = nil }
            return stored
        }
        pending?.resume(returning: value)
    }
}
