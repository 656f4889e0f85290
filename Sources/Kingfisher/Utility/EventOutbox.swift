/// Events an owner records under its lock and hands to its observer after it, in the order they were recorded:
/// the hooks of the library's machinery (``Limiter``, ``DiskIO``, ``PeriodicWork``), which tests assert on instead
/// of waiting and looking.
///
/// Nothing is recorded while no observer is set, so an unobserved owner pays one `nil` check per event. The
/// observer is never called under the owner's lock, and never by two threads at once: a thread that finds another
/// delivering leaves its events to it, so the observer sees every event once, in lock order, and may call back
/// into the owner. (So an event may reach the observer a moment after the thread that caused it went on.)
///
/// ```swift
/// let batch = state.withLock { state in
///     state.outbox.post(.started(id))
///     return state.outbox.claim()
/// }
/// EventOutbox.deliver(batch) { state.withLock { $0.outbox.next() } }
/// ```
struct EventOutbox<Event: Sendable> {
    typealias Observer = @Sendable (Event) -> Void
    typealias Batch = (observer: Observer, events: [Event])

    /// Who is told; `nil`, the default, records nothing.
    var observer: Observer? {
        didSet { if observer == nil { pending = [] } }
    }
    private var pending: [Event] = []
    private var delivering = false

    init() {}

    /// Whether events are recorded (an observer is set).
    var isObserved: Bool { observer != nil }

    /// Records `event` for the observer, if there is one (`event` is not evaluated otherwise).
    mutating func post(_ event: @autoclosure () -> Event) {
        guard observer != nil else { return }
        pending.append(event())
    }

    /// Under the lock, after posting: the events this thread is to deliver once it has let the lock go; `nil` when
    /// there are none, or another thread is delivering (it will deliver them).
    mutating func claim() -> Batch? {
        guard !delivering, let observer, !pending.isEmpty else { return nil }
        delivering = true
        defer { pending = [] }
        return (observer, pending)
    }

    /// Under the lock, after a batch was delivered: the events posted meanwhile, or `nil` (and the delivery ends).
    mutating func next() -> Batch? {
        guard let observer, !pending.isEmpty else {
            delivering = false
            pending = []
            return nil
        }
        defer { pending = [] }
        return (observer, pending)
    }

    /// Hands `batch` to its observer outside the owner's lock, then the batches `next` (which takes the lock and
    /// calls ``next()``) gives, until none is left.
    static func deliver(_ batch: Batch?, next: () -> Batch?) {
        guard var current = batch else { return }
        while true {
            for event in current.events { current.observer(event) }
            guard let following = next() else { return }
            current = following
        }
    }
}
