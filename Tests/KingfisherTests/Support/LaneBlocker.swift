import Foundation
import KingfisherLocking
import Testing

@testable import Kingfisher

/// Holds every thread of a lane until released.
final class LaneBlocker: Sendable {
    private let gate = DispatchSemaphore(value: 0)
    private let threads: Int
    private let released = Locked(0)

    init(lane: PriorityThreadPool, threads: Int) async {
        self.threads = threads
        let started = ResultlessCounter()
        for _ in 0..<threads {
            Task(priority: .high) { [gate] in
                await lane.run {
                    started.increment()
                    gate.wait()
                }
            }
        }
        await started.wait(for: threads)
    }

    /// Frees `count` threads (all of them by default; each at most once over every call).
    func release(_ count: Int? = nil) {
        let count = min(count ?? threads, threads - released.withLock { $0 })
        released.withLock { $0 += count }
        for _ in 0..<count { gate.signal() }
    }
}
