import KingfisherLocking

/// A completion that runs the first time it is called only, on its callback queue: every result of the library
/// (a download, a retrieval, a continuation resumed from a callback) is delivered through one, so a result and a
/// cancel racing each other, or a user's block called twice, reach the caller once.
///
/// It is also the callback APIs' one way into the async core (``run(_:)``): the manager's, the downloader's and the
/// cache's completion-handler methods, and a data provider's default `data(handler:)`, start their work there.
///
/// With a preview sink, the sink is closed before the delivery: no progressive preview arrives after the result.
final class CallbackEdge<Value: Sendable>: Sendable {
    private let handler: Locked<(@Sendable (Value) -> Void)?>
    private let queue: CallbackQueue
    private let sink: PreviewSink?

    init(on queue: CallbackQueue = .untouch, closing sink: PreviewSink? = nil, _ handler: (@Sendable (Value) -> Void)?)
    {
        self.handler = Locked(handler ?? { _ in })
        self.queue = queue
        self.sink = sink
    }

    /// Whether the value was delivered already.
    var isDone: Bool { handler.withLock { $0 == nil } }

    /// Delivers `value` unless something was delivered before.
    func callAsFunction(_ value: Value) {
        let pending = handler.withLock { stored in
            defer { stored = nil }
            return stored
        }
        guard let pending else { return }
        let queue = self.queue
        guard let sink else {
            queue.execute { pending(value) }
            return
        }
        sink.close { queue.execute { pending(value) } }
    }
}

extension CallbackEdge {
    /// Runs `work` in a task of its own and delivers its value: the one place where a callback API starts async
    /// work. Returns the task: cancelling it lets `work` end as it sees fit, and its value is delivered then.
    @discardableResult
    func start(_ work: @escaping @Sendable () async -> Value) -> Task<Void, Never> {
        Task { self(await work()) }
    }

    /// Runs `work` as ``start(_:)`` does. Returns how to cancel: the task is cancelled and the given value
    /// delivered at once (Kingfisher's "a cancelled task answers at once"), unless a value was delivered already.
    @discardableResult
    func run(_ work: @escaping @Sendable () async -> Value) -> @Sendable (Value) -> Void {
        let task = start(work)
        return { value in
            task.cancel()
            self(value)
        }
    }
}

extension CallbackEdge {
    /// Awaits the value a callback API delivers: the one place where async code waits for a callback (a retry
    /// strategy's decision, a downloader subclass's completion handler). `start` gets the delivery; the first value
    /// counts. When the calling task is cancelled, `cancel` runs with the delivery: it delivers a value of its own
    /// at once, or makes the callback API deliver one.
    static func awaiting(
        _ start: (CallbackEdge<Value>) -> Void,
        whenCancelled cancel: @escaping @Sendable (CallbackEdge<Value>) -> Void
    ) async -> Value {
        let once = Locked<CallbackEdge<Value>?>(nil)
        return await withTaskCancellationHandler {
            await withSanitizedCheckedContinuation { continuation in
                let deliver = CallbackEdge { continuation.resume(returning: $0) }
                once.withLock { $0 = deliver }
                start(deliver)
                // A cancel that came before the delivery was recorded.
                if Task.isCancelled { cancel(deliver) }
            }
        } onCancel: {
            if let deliver = once.withLock({ $0 }) { cancel(deliver) }
        }
    }
}
