extension SessionDataTask {
    /// The life of one HTTP task, as a value: waiting for a connection, fetching, then ended (with the body, or
    /// cancelled because every caller left); and the progress of its body. Who waits for it is the downloader's
    /// shared work (``SharedWork``), not this.
    struct StateMachine {
        enum Phase: Equatable {
            /// Waiting for a download slot.
            case queued
            /// Fetching.
            case running
            /// The fetch ended: its body went on to processing, or it failed, or every caller had left
            /// (`cancelled`).
            case ended(cancelled: Bool)
        }

        private(set) var phase = Phase.queued
        private(set) var received: Int64 = 0
        private(set) var expected: Int64 = -1

        /// Whether the task ended because its callers cancelled.
        var wasCancelled: Bool { phase == .ended(cancelled: true) }

        /// Took a download slot: the fetch starts. `false` when it ended already.
        mutating func begin() -> Bool {
            guard phase == .queued else { return false }
            phase = .running
            return true
        }

        /// The fetch ended; `cancelled` when nobody was waiting for it any more. The first end stands.
        mutating func end(cancelled: Bool) {
            guard case .ended = phase else {
                phase = .ended(cancelled: cancelled)
                return
            }
        }

        /// Records how much of the body has arrived.
        mutating func progress(received: Int64, expected: Int64) {
            self.received = received
            self.expected = expected
        }
    }
}
