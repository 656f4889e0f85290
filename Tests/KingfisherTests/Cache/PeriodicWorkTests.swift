import Foundation
import KingfisherLocking
import KingfisherTestSupport
import Testing

@testable import Kingfisher

/// The library's periodic upkeep: jobs run at their own intervals from one runner, stop when they say so or are
/// cancelled, and a job added with a shorter interval than the others does not wait for theirs.
@Suite(.timeLimit(.minutes(1)))
struct PeriodicWorkTests {
    @Test func aShortJobAddedAfterALongOneRunsAtItsOwnInterval() async {
        let work = PeriodicWork()
        let long = work.every(3600) { true }
        let ticks = Locked(0)
        // Given a job due in an hour, then one every 10 ms
        let short = work.every(0.01) {
            ticks.withLock { $0 += 1 }
            return true
        }
        // Then the short one runs again and again without waiting for the long one
        #expect(await eventually(timeout: 40) { ticks.withLock { $0 } >= 3 })
        work.cancel(short)
        work.cancel(long)
        #expect(work.jobCount == 0)
    }

    @Test func aJobThatReturnsFalseIsNotCalledAgain() async {
        let work = PeriodicWork()
        let calls = Locked(0)
        _ = work.every(0.005) {
            calls.withLock { $0 += 1 }
            return false
        }
        #expect(await eventually(timeout: 40) { work.jobCount == 0 })
        try? await Task.sleep(for: .milliseconds(50))
        #expect(calls.withLock { $0 } == 1)
    }

    @Test func aCancelledJobIsNotCalledAgain() async {
        let work = PeriodicWork()
        let calls = Locked(0)
        let job = work.every(0.005) {
            calls.withLock { $0 += 1 }
            return true
        }
        #expect(await eventually(timeout: 40) { calls.withLock { $0 } >= 1 })
        work.cancel(job)
        let after = calls.withLock { $0 }
        try? await Task.sleep(for: .milliseconds(50))
        // A call running when it was cancelled may finish; none starts after
        #expect(calls.withLock { $0 } <= after + 1)
        #expect(work.jobCount == 0)
    }

    @Test func aMemoryStorageReleasedEndsItsJob() throws {
        var memory: MemoryStorage.Backend<KFCrossPlatformImage>? = MemoryStorage.Backend(
            config: .init(totalCostLimit: 0, cleanInterval: 3600))
        let job = try #require(memory?.cleanerJob)
        #expect(PeriodicWork.shared.isScheduled(job))
        memory = nil
        #expect(!PeriodicWork.shared.isScheduled(job))
    }

    @Test func nothingIsScheduledForAnIntervalOfZero() {
        let work = PeriodicWork()
        #expect(work.every(0) { true } == nil)
        #expect(work.every(.infinity) { true } == nil)
        #expect(work.jobCount == 0)
    }
}
