import KingfisherLocking

/// One caller's handle on a download or a retrieval: cancelling it cancels the work it stands for.
///
/// It wraps the work's cancellation: the `Task` running the download (or the retrieval) is cancelled, and the
/// caller is told at once with the error of the step the work is in — ``KingfisherError/RequestErrorReason/taskCancelled(task:token:)``
/// once attached to an HTTP task (also while the image is processed), ``KingfisherError/RequestErrorReason/dataProviderCancelled(provider:)``
/// while a provider loads, ``KingfisherError/RequestErrorReason/asyncTaskContextCancelled`` before the request is
/// sent. Other callers coalesced onto the same HTTP request are not affected; the request is cancelled when the
/// last one cancels.
///
/// It is returned at once, before the request modifier has run; a cancel then is not lost: no request is sent.
public final class DownloadTask: Sendable {
    private struct State {
        var isCancelled = false
        var isFinished = false
        /// Stop the work and tell the caller; added by whoever runs work for this handle (a retrieval and the
        /// download inside it both do).
        var onCancel: [@Sendable (KingfisherError) -> Void] = []
        /// The error a cancel reports now.
        var reason = KingfisherError.requestError(reason: .asyncTaskContextCancelled)
        var last: (task: SessionDataTask, token: SessionDataTask.CancelToken)?
    }

    private let state = Locked(State())

    init() {}

    /// The shared HTTP task this caller is (or was last) attached to; `nil` before the request is sent.
    public var sessionTask: SessionDataTask? { state.withLock { $0.last?.task } }

    /// This caller's token on ``sessionTask``.
    public var cancelToken: SessionDataTask.CancelToken? { state.withLock { $0.last?.token } }

    /// Whether the task is attached to an HTTP task: ``sessionTask`` and ``cancelToken`` are set. `false` while the
    /// request is prepared (a request modifier running) and for retrievals that never reach the network.
    public var isInitialized: Bool { state.withLock { $0.last != nil } }

    /// Whether ``cancel()`` was called before the work finished.
    public var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// Cancels this caller's work. Its completion handler gets a cancellation error (see
    /// ``KingfisherError/isTaskCancelled``), also while the image is being processed; other callers of the same
    /// URL are not affected. Does nothing once the result has been delivered.
    public func cancel() {
        let (handlers, reason) = state.withLock { state -> ([@Sendable (KingfisherError) -> Void], KingfisherError) in
            guard !state.isCancelled, !state.isFinished else { return ([], state.reason) }
            state.isCancelled = true
            defer { state.onCancel = [] }
            return (state.onCancel, state.reason)
        }
        for handler in handlers { handler(reason) }
    }

    /// Adds what a cancel does (stop the work, tell the caller). When the task was cancelled already, runs it at
    /// once; when it finished, never.
    func onCancel(_ handler: @escaping @Sendable (KingfisherError) -> Void) {
        let runNow = state.withLock { state -> KingfisherError? in
            guard !state.isFinished else { return nil }
            guard !state.isCancelled else { return state.reason }
            state.onCancel.append(handler)
            return nil
        }
        if let runNow { handler(runNow) }
    }

    /// Records the HTTP task and token this caller waits on: a cancel from now on reports `taskCancelled`.
    func attach(_ task: SessionDataTask, token: SessionDataTask.CancelToken) {
        state.withLock { state in
            state.last = (task, token)
            state.reason = .requestError(reason: .taskCancelled(task: task, token: token))
        }
    }

    /// The error a cancel reports from now on (the step the work is in).
    func report(_ reason: KingfisherError) {
        state.withLock { $0.reason = reason }
    }

    /// The error a cancel reports now.
    var cancellationReason: KingfisherError { state.withLock { $0.reason } }

    /// The result stands: a cancel does nothing from now on. `false` when the task was cancelled first.
    @discardableResult
    func markFinished() -> Bool {
        state.withLock { state in
            guard !state.isCancelled else { return false }
            state.isFinished = true
            state.onCancel = []
            return true
        }
    }
}
