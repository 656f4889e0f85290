import KingfisherLocking

/// One caller's handle on a download. Cancelling it cancels only this caller: the HTTP request goes on for the
/// other callers coalesced onto it and is cancelled when the last one cancels.
///
/// It is returned at once, before the request modifier has run; cancelling it then is not lost — the caller
/// gets ``KingfisherError/RequestErrorReason/asyncTaskContextCancelled`` and no request is sent.
public final class DownloadTask: Sendable {
    enum State {
        /// Not attached to an HTTP task (preparing the request or waiting to retry). `onCancel` reports the
        /// cancellation to the caller.
        case pending(onCancel: (@Sendable () -> Void)?)
        /// Attached to an HTTP task; `onCancel` reports the cancellation even when the HTTP task has already
        /// handed the data over for processing.
        case attached(SessionDataTask, SessionDataTask.CancelToken, onCancel: @Sendable () -> Void)
        case cancelled
        case finished
    }

    private struct Storage {
        var state: State = .pending(onCancel: nil)
        var last: (task: SessionDataTask, token: SessionDataTask.CancelToken)?
    }

    private let storage = Locked(Storage())

    init() {}

    /// The shared HTTP task this caller is (or was last) attached to; `nil` before the request is sent.
    public var sessionTask: SessionDataTask? { storage.withLock { $0.last?.task } }

    /// This caller's token on ``sessionTask``.
    public var cancelToken: SessionDataTask.CancelToken? { storage.withLock { $0.last?.token } }

    /// Whether the task is attached to an HTTP task: ``sessionTask`` and ``cancelToken`` are set. `false` while the
    /// request is prepared (a request modifier running) and for retrievals that never reach the network.
    public var isInitialized: Bool { storage.withLock { $0.last != nil } }

    /// Whether ``cancel()`` was called before the download finished.
    public var isCancelled: Bool {
        storage.withLock {
            if case .cancelled = $0.state { return true }
            return false
        }
    }

    /// Cancels this caller's download. Its completion handler gets a cancellation error (see
    /// ``KingfisherError/isTaskCancelled``), also while the image is being processed; other callers of the same
    /// URL are not affected. Does nothing once the result has been delivered.
    public func cancel() {
        let previous = storage.withLock { storage -> State in
            let previous = storage.state
            switch previous {
            case .pending, .attached: storage.state = .cancelled
            case .cancelled, .finished: break
            }
            return previous
        }
        switch previous {
        case .pending(let onCancel): onCancel?()
        case .attached(let task, let token, let onCancel):
            task.cancel(token: token)
            onCancel()
        case .cancelled, .finished: break
        }
    }

    /// Records the HTTP task and token; `false` when cancelled already (the caller must cancel the token).
    func attach(
        _ task: SessionDataTask, token: SessionDataTask.CancelToken, onCancel: @escaping @Sendable () -> Void
    ) -> Bool {
        storage.withLock { storage in
            storage.last = (task, token)
            guard case .pending = storage.state else { return false }
            storage.state = .attached(task, token, onCancel: onCancel)
            return true
        }
    }

    /// Goes back to pending (a new attempt or a retry) with a new cancellation reporter; `false` when cancelled.
    func setPending(onCancel: @escaping @Sendable () -> Void) -> Bool {
        storage.withLock { storage in
            switch storage.state {
            case .pending, .attached:
                storage.state = .pending(onCancel: onCancel)
                return true
            case .cancelled, .finished:
                return false
            }
        }
    }

    /// The downloader is done with this task but its owner (a retrieval) is not: back to pending with no reporter,
    /// so a cancel from now on is recorded (``isCancelled``) for the owner to see. Does nothing once cancelled or
    /// finished.
    func handBack() {
        storage.withLock { storage in
            switch storage.state {
            case .pending, .attached: storage.state = .pending(onCancel: nil)
            case .cancelled, .finished: break
            }
        }
    }

    func markFinished() {
        storage.withLock { storage in
            if case .cancelled = storage.state { return }
            storage.state = .finished
        }
    }
}
