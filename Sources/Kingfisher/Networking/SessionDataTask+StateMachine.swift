extension SessionDataTask {
    /// The life of one HTTP task and its waiters, as a value: every method decides, and returns what the waiter
    /// must do once the lock is released.
    struct StateMachine {
        enum Phase {
            /// Waiting for a download slot.
            case queued
            /// Fetching; the Swift task is `nil` for the instant between taking the slot and creating it.
            case running(Task<Void, Never>?)
            /// The body is in and being processed; callers arriving now join and are processed from it.
            case processing
            /// Completed or cancelled; no waiter can join any more.
            case finished
        }

        /// How to stop the work once no waiter is left.
        enum Stop {
            /// Still queued: take it out of the downloader's queue.
            case dequeue
            /// Running: cancel the fetch (`nil` when the fetch task is not created yet; it sees `finished`).
            case cancelFetch(Task<Void, Never>?)
            /// The body is in: stop the decode of the group whose last caller left (it leaves the decode queue).
            case stopDecode(@Sendable () -> Void)
        }

        /// A caller and its token.
        typealias Caller = (token: CancelToken, waiter: DownloadWaiter)

        private(set) var phase: Phase = .queued
        private(set) var waiters: [Caller] = []
        /// Callers handed to processing (the body is in), until they are delivered; they can still leave.
        private var processing: [CancelToken: DownloadWaiter] = [:]
        /// The group being decoded: its callers still there, and how to stop its decode.
        private var decoding: (tokens: Set<CancelToken>, stop: @Sendable () -> Void)?
        private var nextToken: CancelToken = 0
        private(set) var received: Int64 = 0
        private(set) var expected: Int64 = -1
        /// Whether the task ended because its waiters cancelled.
        private(set) var wasCancelled = false
        /// The highest task priority of the waiters so far: the fetch and its decodes run at it.
        private(set) var priority: TaskPriority?
        /// The task fetching and then processing, once created, and the priority it runs at.
        private var driver: (task: Task<Void, Never>, priority: TaskPriority?)?

        var isFinished: Bool {
            if case .finished = phase { return true }
            return false
        }

        var isQueued: Bool {
            if case .queued = phase { return true }
            return false
        }

        /// Adds a waiter; `nil` when the task has finished and a new one is needed.
        mutating func add(_ waiter: DownloadWaiter) -> CancelToken? {
            guard !isFinished else { return nil }
            let token = nextToken
            nextToken += 1
            waiters.append((token, waiter))
            priority = max(priority ?? waiter.priority, waiter.priority)
            return token
        }

        /// The fetch to escalate after a waiter of `priority` joined: the running or processing task, when it
        /// runs below that.
        mutating func escalation(for priority: TaskPriority) -> Task<Void, Never>? {
            guard let driver, !isFinished, priority > (driver.priority ?? .low) else { return nil }
            self.driver?.priority = priority
            return driver.task
        }

        /// Removes the waiter with `token`; the HTTP work stops when it was the last one. While the body is
        /// processed, a caller leaves at once too, and the decode of its group stops when it was the group's last.
        mutating func cancel(token: CancelToken) -> (waiter: DownloadWaiter?, stop: Stop?) {
            if let waiter = processing.removeValue(forKey: token) {
                guard var group = decoding, group.tokens.remove(token) != nil else { return (waiter, nil) }
                decoding = group.tokens.isEmpty ? nil : group
                return (waiter, group.tokens.isEmpty ? .stopDecode(group.stop) : nil)
            }
            guard let index = waiters.firstIndex(where: { $0.token == token }) else { return (nil, nil) }
            let waiter = waiters.remove(at: index).waiter
            guard waiters.isEmpty else { return (waiter, nil) }
            return (waiter, finish())
        }

        /// A group's decode begins for the callers with `tokens`; `stop` stops it. `false` when every one of them
        /// has left already: do not decode.
        mutating func beginDecode(for tokens: [CancelToken], stop: @escaping @Sendable () -> Void) -> Bool {
            let present = Set(tokens.filter { processing[$0] != nil })
            guard !present.isEmpty else { return false }
            decoding = (present, stop)
            return true
        }

        /// The group's decode ended; its callers are about to be delivered.
        mutating func endDecode(delivering tokens: [CancelToken]) {
            decoding = nil
            for token in tokens { processing[token] = nil }
        }

        /// Removes every waiter (those being processed too) and stops the HTTP work, or the decode.
        mutating func cancelAll() -> (waiters: [Caller], stop: Stop?) {
            let removed = waiters + processing.map { ($0.key, $0.value) }
            waiters = []
            processing = [:]
            if let group = decoding {
                decoding = nil
                return (removed, .stopDecode(group.stop))
            }
            return (removed, finish())
        }

        private mutating func finish() -> Stop? {
            switch phase {
            case .processing:
                // The body is in: nothing to stop; the run ends when its processing does.
                return nil
            case .queued, .running: wasCancelled = true
            case .finished: break
            }
            switch phase {
            case .queued:
                phase = .finished
                return .dequeue
            case .running(let fetch):
                phase = .finished
                return .cancelFetch(fetch)
            case .finished, .processing:
                return nil
            }
        }

        /// Takes a download slot; `false` when every waiter left while queued.
        mutating func begin() -> Bool {
            guard isQueued else { return false }
            phase = .running(nil)
            return true
        }

        /// Records the fetch task; `false` when every waiter left before it was recorded (cancel the fetch). The
        /// fetch may have run to its body already (on a busy machine it can finish before the thread that started
        /// it records it): then it goes on processing, and is recorded for priority escalation only.
        mutating func attachFetch(_ fetch: Task<Void, Never>) -> Bool {
            switch phase {
            case .running:
                phase = .running(fetch)
            case .processing:
                break
            case .queued, .finished:
                return false
            }
            driver = (fetch, priority)
            return true
        }

        /// Ends the fetch and hands back the callers waiting for the data. With `acceptingLateCallers`, callers can
        /// still join while the data is processed (see ``takeLateCallers(finishingIfNone:)``), and those handed
        /// back can still leave (``cancel(token:)``); otherwise the task is finished.
        mutating func complete(acceptingLateCallers: Bool) -> [Caller] {
            guard !isFinished else { return [] }
            phase = acceptingLateCallers ? .processing : .finished
            defer { waiters = [] }
            if acceptingLateCallers { hand(waiters) }
            return waiters
        }

        /// The callers that joined since the last call. When there are none and `finishingIfNone`, the task is
        /// finished (later callers need a new request).
        mutating func takeLateCallers(finishingIfNone: Bool = true) -> [Caller] {
            guard case .processing = phase else { return [] }
            guard !waiters.isEmpty else {
                if finishingIfNone { phase = .finished }
                return []
            }
            defer { waiters = [] }
            hand(waiters)
            return waiters
        }

        private mutating func hand(_ callers: [Caller]) {
            for caller in callers { processing[caller.token] = caller.waiter }
        }

        /// Records progress and returns the waiters to tell.
        mutating func progress(received: Int64, expected: Int64) -> [DownloadWaiter] {
            self.received = received
            self.expected = expected
            return waiters.map(\.waiter)
        }
    }
}
