import Dispatch
import Foundation
import NIOCore
import NIOPosix
import KingfisherLocking

/// Makes the progressive JPEG previews of one HTTP task for its callers that asked for them (`.progressiveJPEG`).
///
/// The body's pieces are followed by a ``JPEGScanTracker``; when a preview is due, the bytes of the completed scans
/// are copied from what the task has received (no second copy of the body is kept). At most one preview decode runs per download, on the preview pool
/// (``pool``), never on the cooperative pool. When it ends, the next one starts if a caller is due: a new scan
/// completed and its ``ImageProgressive/scanInterval`` since its last preview has passed (a timer waits for the
/// interval when no byte arrives meanwhile). The body's bytes are released, and nothing more is decoded or
/// delivered, once the body is complete: the final image is on its way then. A caller that left the download
/// (cancelled) gets no more previews.
///
/// A caller that joins the task after its first byte arrived gets previews only when a caller with previews was
/// there from the start.
final class ProgressivePreviewer: Sendable {
    private struct Subscriber {
        let caller: DownloadWaiter
        let sink: PreviewSink
        /// The scans its last preview showed (or is being decoded from).
        var scans = 0
        /// When its next preview may start.
        var readyAt: ContinuousClock.Instant
    }

    private struct State {
        var tracker = JPEGScanTracker()
        var subscribers: [Subscriber] = []
        var isDecoding = false
        var isFinished = false
        var wakeAt: ContinuousClock.Instant?

        mutating func finish() {
            isFinished = true
            subscribers = []
        }

        /// Adds the callers that want previews and drops those that left.
        mutating func follow(_ callers: [DownloadWaiter]) {
            subscribers.removeAll { subscriber in !callers.contains { $0 === subscriber.caller } }
            for caller in callers where !subscribers.contains(where: { $0.caller === caller }) {
                guard let sink = caller.context.previewSink else { continue }
                subscribers.append(Subscriber(caller: caller, sink: sink, readyAt: .now))
            }
        }

        /// What to do next: decode a preview, wait for a scan interval to pass, or nothing.
        mutating func next() -> Step {
            guard !isFinished, !isDecoding, case .progressive(let width, let height) = tracker.verdict else {
                return .none
            }
            let completed = tracker.scanEnds.count
            let now = ContinuousClock.now
            var earliest: ContinuousClock.Instant?
            for index in subscribers.indices {
                let subscriber = subscribers[index]
                guard subscriber.scans < completed, !subscriber.sink.isClosed else { continue }
                guard subscriber.readyAt <= now else {
                    earliest = min(earliest ?? subscriber.readyAt, subscriber.readyAt)
                    continue
                }
                let scans = subscriber.sink.progressive.isFastestScan ? completed : subscriber.scans + 1
                subscribers[index].scans = scans
                isDecoding = true
                let job = Job(
                    length: tracker.scanEnds[scans - 1], scans: scans, frame: (width, height),
                    caller: subscriber.caller,
                    sink: subscriber.sink)
                return .decode(job)
            }
            guard let earliest, wakeAt.map({ earliest < $0 }) ?? true else { return .none }
            wakeAt = earliest
            return .wake(at: earliest)
        }

        /// Records a finished decode for `caller`: its next preview may start a scan interval from now.
        mutating func decoded(for caller: DownloadWaiter) {
            isDecoding = false
            guard let index = subscribers.firstIndex(where: { $0.caller === caller }) else { return }
            let interval = max(0, subscribers[index].sink.progressive.scanInterval)
            subscribers[index].readyAt = .now + .milliseconds(Int64((interval * 1000).rounded(.up)))
        }

        func isFollowing(_ caller: DownloadWaiter) -> Bool {
            !isFinished && subscribers.contains { $0.caller === caller }
        }
    }

    private enum Step {
        case none
        case decode(Job)
        case wake(at: ContinuousClock.Instant)
    }

    private let state = Locked(State())
    /// The body received so far (a copy).
    private let received: @Sendable () -> Data
    /// The download's callers now.
    private let callers: @Sendable () -> [DownloadWaiter]

    /// A previewer for a download whose callers `callers` gives and whose body so far `received` gives; `nil` when
    /// none of its callers wants previews now.
    init?(callers: @escaping @Sendable () -> [DownloadWaiter], received: @escaping @Sendable () -> Data) {
        let present = callers()
        guard present.contains(where: { $0.context.previewSink != nil }) else { return nil }
        self.received = received
        self.callers = callers
        state.withLock { $0.follow(present) }
    }

    /// Takes the next piece of the body; `callers` are the task's callers now.
    func receive(_ chunk: ByteBuffer, callers: [DownloadWaiter]) {
        let step = state.withLock { state -> Step in
            guard !state.isFinished else { return .none }
            chunk.withUnsafeReadableBytes { state.tracker.consume($0) }
            guard state.tracker.verdict != .notProgressive else {
                state.finish()
                return .none
            }
            state.follow(callers)
            return state.next()
        }
        perform(step)
    }

    /// The body is complete (or failed): decode and deliver nothing more, and let the bytes go.
    func finish() {
        state.withLock { $0.finish() }
    }

    private func pump() {
        perform(state.withLock { $0.next() })
    }

    private func perform(_ step: Step) {
        switch step {
        case .none:
            break
        case .decode(let job):
            job.caller.workers.previews.submit { [self] in run(job) }
        case .wake(let instant):
            let delay = ContinuousClock.now.duration(to: instant)
            let nanoseconds = max(
                0, delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000)
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { [weak self] in
                guard let self else { return }
                state.withLock { $0.wakeAt = nil }
                pump()
            }
        }
    }

    /// The JPEG of the job's completed scans: the body's first `length` bytes and an end-of-image marker; `nil` when
    /// the body is gone already (the final image is on its way).
    private func scanBytes(_ job: Job) -> Data? {
        let body = received()
        guard body.count >= job.length else { return nil }
        var bytes = Data(body.prefix(job.length))
        bytes.append(contentsOf: [0xFF, 0xD9])
        return bytes
    }

    private func run(_ job: Job) {
        let wanted = { [self] in
            state.withLock { $0.isFollowing(job.caller) } && callers().contains { $0 === job.caller }
        }
        if wanted(), let preview = Self.decode(job, bytes: scanBytes(job)), wanted() {
            job.sink.deliver(preview, scans: job.scans, from: job.caller)
        }
        state.withLock { $0.decoded(for: job.caller) }
        pump()
    }
}
