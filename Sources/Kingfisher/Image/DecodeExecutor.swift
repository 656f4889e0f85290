import Foundation
import KingfisherLocking

/// The decode stage's executor: where every decode and processing run happens (downloads, providers, disk hits,
/// originals processed again, encodes for the disk). Pools of threads, one per core by default
/// (``ImageEngine/Configuration/decodeConcurrency``), so CPU-bound libvips work never holds the cooperative thread
/// pool and at most that many decodes run at once; waiting work goes by task priority (``DecodeLane``); a large progressive JPEG is admitted by ``LargeDecodeGate``
/// before it takes a thread. The work runs with its owner's ``ImageEngine/Configuration`` (limits) applied. Pools
/// live for the process; owners with the same concurrency share one.
enum DecodeExecutor {
    private static let lanes = Locked<[Int: DecodeLane]>([:])

    /// The lane of the pool with `threads` threads, started on first use.
    static func lane(threads: Int) -> DecodeLane {
        lanes.withLock { lanes in
            if let lane = lanes[threads] { return lane }
            let lane = DecodeLane(threads: threads)
            lanes[threads] = lane
            return lane
        }
    }

    /// Runs `body`, which decodes `data`, on `queue` when the options name a dispatch queue, otherwise on the
    /// pool of `engine` (the default configuration's when `nil`), once ``LargeDecodeGate`` admits it (a large
    /// progressive JPEG waits for the one before it without holding a thread).
    static func run<T: Sendable>(
        on queue: CallbackQueue?, decoding data: Data?, engine: ImageEngine.Configuration? = nil,
        _ body: @escaping @Sendable () -> T
    ) async -> T {
        let configuration = engine ?? .default
        guard configuration.largeDecodesOneAtATime else { return await run(on: queue, engine: engine, body) }
        return await LargeDecodeGate.admitted(data, { await run(on: queue, engine: engine, $0) }, work: body)
    }

    /// Runs `body` on `queue` when the options name one (a dispatch or operation queue), otherwise on the pool of
    /// `engine`, with `engine` applied.
    static func run<T: Sendable>(
        on queue: CallbackQueue?, engine: ImageEngine.Configuration? = nil, _ body: @escaping @Sendable () -> T
    ) async -> T {
        let work: @Sendable () -> T = { ImageEngine.Configuration.applying(engine, body) }
        DecodeQueueDepth.enter()
        defer { DecodeQueueDepth.leave() }
        if let queue, queue.runsElsewhere {
            return await withSanitizedCheckedContinuation { continuation in
                queue.execute { continuation.resume(returning: work()) }
            }
        }
        let threads = engine?.decodeConcurrency ?? ImageEngine.Configuration.default.decodeConcurrency
        return await run(work, in: lane(threads: threads))
    }

    /// Runs `work` in `lane` at the calling task's priority, raised while it waits when the task is escalated
    /// (a higher-priority retrieval joined the shared work this task runs).
    static func run<T: Sendable>(_ work: @escaping @Sendable () -> T, in lane: DecodeLane) async -> T {
        let ticket = EscalatableTicket()
        return await withTaskPriorityEscalationHandler {
            await withSanitizedCheckedContinuation { continuation in
                let submitted = lane.submit(priority: Task.currentPriority) { continuation.resume(returning: work()) }
                if let raised = ticket.record(submitted) { lane.raise(submitted, to: raised) }
            }
        } onPriorityEscalated: { _, raised in
            if let submitted = ticket.escalate(to: raised) { lane.raise(submitted, to: raised) }
        }
    }
}

/// A job's ticket as its escalation handler sees it: the escalation can arrive before the job is in the lane.
private final class EscalatableTicket: Sendable {
    private let state = Locked<(ticket: DecodeLane.Ticket?, raised: TaskPriority?)>((nil, nil))

    /// Records the submitted job's ticket; returns a priority it was escalated to before that.
    func record(_ ticket: DecodeLane.Ticket) -> TaskPriority? {
        state.withLock { state in
            state.ticket = ticket
            return state.raised
        }
    }

    /// Notes an escalation; returns the ticket to raise when the job is in the lane already.
    func escalate(to priority: TaskPriority) -> DecodeLane.Ticket? {
        state.withLock { state in
            state.raised = max(state.raised ?? priority, priority)
            return state.ticket
        }
    }
}
