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
    /// What the work for this handle waits on now; a cancel answers with its error (``cancellationError``).
    enum Step: Sendable {
        /// Not on the network: before the request is sent, between retries, or the handle of a source given up
        /// for an alternative.
        case preparing
        /// A provider loading its data.
        case providing(any ImageDataProvider)
        /// The HTTP task the caller is attached to, from the request until the result is delivered (processing
        /// included).
        case requesting(SessionDataTask, SessionDataTask.CancelToken)

        /// The error a cancel in this step answers with, as Kingfisher's.
        var cancellationError: KingfisherError {
            switch self {
            case .preparing: .requestError(reason: .asyncTaskContextCancelled)
            case .providing(let provider): .requestError(reason: .dataProviderCancelled(provider: provider))
            case .requesting(let task, let token): .requestError(reason: .taskCancelled(task: task, token: token))
            }
        }
    }

    private struct State {
        var isCancelled = false
        var isFinished = false
        /// Stop the work and tell the caller; added by whoever runs work for this handle (a retrieval and the
        /// download inside it both do).
        var onCancel: [@Sendable (KingfisherError) -> Void] = []
        var step = Step.preparing
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
        let (handlers, step) = state.withLock { state -> ([@Sendable (KingfisherError) -> Void], Step) in
            guard !state.isCancelled, !state.isFinished else { return ([], state.step) }
            state.isCancelled = true
            defer { state.onCancel = [] }
            return (state.onCancel, state.step)
        }
        let error = step.cancellationError
        for handler in handlers { handler(error) }
    }

    /// Adds what a cancel does (stop the work, tell the caller). When the task was cancelled already, runs it at
    /// once; when it finished, never.
    func onCancel(_ handler: @escaping @Sendable (KingfisherError) -> Void) {
        let runNow = state.withLock { state -> Step? in
            guard !state.isFinished else { return nil }
            guard !state.isCancelled else { return state.step }
            state.onCancel.append(handler)
            return nil
        }
        if let runNow { handler(runNow.cancellationError) }
    }

    /// Records the HTTP task and token this caller waits on: the step is ``Step/requesting(_:_:)`` from now on.
    func attach(_ task: SessionDataTask, token: SessionDataTask.CancelToken) {
        state.withLock { state in
            state.last = (task, token)
            state.step = .requesting(task, token)
        }
    }

    /// Where a download records its place on this handle: the HTTP task and token it joined (then the request
    /// modifier's `onDownloadTaskStarted` hears of the handle), or `nil` when it prepares a request again.
    func placement(
        requestModifier: (any AsyncImageDownloadRequestModifier)?
    ) -> ImageDownloader.Placement {
        { [self] place in
            guard let place else {
                enter(.preparing)
                return
            }
            attach(place.task, token: place.token)
            requestModifier?.onDownloadTaskStarted?(self)
        }
    }

    /// The work for this handle enters `step`.
    func enter(_ step: Step) {
        state.withLock { $0.step = step }
    }

    /// The error a cancel answers with now.
    var cancellationError: KingfisherError { state.withLock { $0.step }.cancellationError }

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
