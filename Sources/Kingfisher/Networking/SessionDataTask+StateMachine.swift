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

        /// How to stop the HTTP work once no waiter is left.
        enum Stop {
            /// Still queued: take it out of the downloader's queue.
            case dequeue
            /// Running: cancel the fetch (`nil` when the fetch task is not created yet; it sees `finished`).
            case cancelFetch(Task<Void, Never>?)
        }

        private(set) var phase: Phase = .queued
        private(set) var waiters: [(token: CancelToken, waiter: DownloadWaiter)] = []
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

        /// Removes the waiter with `token`; the HTTP work stops when it was the last one.
        mutating func cancel(token: CancelToken) -> (waiter: DownloadWaiter?, stop: Stop?) {
            guard let index = waiters.firstIndex(where: { $0.token == token }) else { return (nil, nil) }
            let waiter = waiters.remove(at: index).waiter
            guard waiters.isEmpty else { return (waiter, nil) }
            return (waiter, finish())
        }

        /// Removes every waiter and stops the HTTP work.
        mutating func cancelAll() -> (waiters: [(token: CancelToken, waiter: DownloadWaiter)], stop: Stop?) {
            let removed = waiters
            waiters = []
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

        /// Records the fetch task; `false` when the task finished meanwhile (cancel the fetch).
        mutating func attachFetch(_ fetch: Task<Void, Never>) -> Bool {
            guard case .running = phase else { return false }
            phase = .running(fetch)
            driver = (fetch, priority)
            return true
        }

        /// Ends the fetch and hands back the callers waiting for the data. With `acceptingLateCallers`, callers can
        /// still join while the data is processed (see ``takeLateCallers(finishingIfNone:)``); otherwise the task is finished.
        mutating func complete(acceptingLateCallers: Bool) -> [DownloadWaiter] {
            guard !isFinished else { return [] }
            phase = acceptingLateCallers ? .processing : .finished
            defer { waiters = [] }
            return waiters.map(\.waiter)
        }

        /// The callers that joined since the last call. When there are none and `finishingIfNone`, the task is
        /// finished (later callers need a new request).
        mutating func takeLateCallers(finishingIfNone: Bool = true) -> [DownloadWaiter] {
            guard case .processing = phase else { return [] }
            guard !waiters.isEmpty else {
                if finishingIfNone { phase = .finished }
                return []
            }
            defer { waiters = [] }
            return waiters.map(\.waiter)
        }

        /// Records progress and returns the waiters to tell.
        mutating func progress(received: Int64, expected: Int64) -> [DownloadWaiter] {
            self.received = received
            self.expected = expected
            return waiters.map(\.waiter)
        }
    }
}
