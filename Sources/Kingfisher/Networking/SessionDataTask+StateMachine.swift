extension SessionDataTask {
    /// The life of one HTTP task and its callers, as a value: every method decides, and returns what the caller
    /// must do once the lock is released.
    struct StateMachine {
        enum Phase {
            /// Waiting for a download slot.
            case queued
            /// Fetching; the Swift task is `nil` for the instant between taking the slot and creating it.
            case running(Task<Void, Never>?)
            /// Completed or cancelled; no caller can join any more.
            case finished
        }

        /// How to stop the HTTP work once no caller is left.
        enum Stop {
            /// Still queued: take it out of the downloader's queue.
            case dequeue
            /// Running: cancel the fetch (`nil` when the fetch task is not created yet; it sees `finished`).
            case cancelFetch(Task<Void, Never>?)
        }

        private(set) var phase: Phase = .queued
        private(set) var callers: [(token: CancelToken, caller: DownloadCaller)] = []
        private var nextToken: CancelToken = 0
        private(set) var received: Int64 = 0
        private(set) var expected: Int64 = -1
        /// Whether the task ended because its callers cancelled.
        private(set) var wasCancelled = false

        var isFinished: Bool {
            if case .finished = phase { return true }
            return false
        }

        var isQueued: Bool {
            if case .queued = phase { return true }
            return false
        }

        /// Adds a caller; `nil` when the task has finished and a new one is needed.
        mutating func add(_ caller: DownloadCaller) -> CancelToken? {
            guard !isFinished else { return nil }
            let token = nextToken
            nextToken += 1
            callers.append((token, caller))
            return token
        }

        /// Removes the caller with `token`; the HTTP work stops when it was the last one.
        mutating func cancel(token: CancelToken) -> (caller: DownloadCaller?, stop: Stop?) {
            guard let index = callers.firstIndex(where: { $0.token == token }) else { return (nil, nil) }
            let caller = callers.remove(at: index).caller
            guard callers.isEmpty else { return (caller, nil) }
            return (caller, finish())
        }

        /// Removes every caller and stops the HTTP work.
        mutating func cancelAll() -> (callers: [(token: CancelToken, caller: DownloadCaller)], stop: Stop?) {
            let removed = callers
            callers = []
            return (removed, finish())
        }

        private mutating func finish() -> Stop? {
            if !isFinished { wasCancelled = true }
            switch phase {
            case .queued:
                phase = .finished
                return .dequeue
            case .running(let fetch):
                phase = .finished
                return .cancelFetch(fetch)
            case .finished:
                return nil
            }
        }

        /// Takes a download slot; `false` when every caller left while queued.
        mutating func begin() -> Bool {
            guard isQueued else { return false }
            phase = .running(nil)
            return true
        }

        /// Records the fetch task; `false` when the task finished meanwhile (cancel the fetch).
        mutating func attachFetch(_ fetch: Task<Void, Never>) -> Bool {
            guard case .running = phase else { return false }
            phase = .running(fetch)
            return true
        }

        /// Ends the task and hands back the callers still waiting for the data.
        mutating func complete() -> [DownloadCaller] {
            guard !isFinished else { return [] }
            phase = .finished
            defer { callers = [] }
            return callers.map(\.caller)
        }

        /// Records progress and returns the callers to tell.
        mutating func progress(received: Int64, expected: Int64) -> [DownloadCaller] {
            self.received = received
            self.expected = expected
            return callers.map(\.caller)
        }
    }
}
