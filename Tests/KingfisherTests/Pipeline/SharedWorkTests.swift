import Foundation
import KingfisherLocking
import KingfisherTestSupport
import Testing

@testable import Kingfisher

/// Work started with nobody waiting (a background revalidation) runs to its end once, however many ask for it.
@Suite(.timeLimit(.minutes(1)))
struct SharedWorkKeptTests {
    @Test func workStartedWithoutWaitersRunsToItsEndOnce() async {
        let shared = SharedWork<String, Int>()
        let gate = Gate()
        let runs = Locked(0)
        let finished = Locked(false)
        // Given work started for a key with nobody waiting, and started again while it runs
        for _ in 0..<3 {
            shared.start(for: "photo") {
                runs.withLock { $0 += 1 }
                await gate.wait()
                finished.withLock { $0 = true }
                return 1
            }
        }
        // Then it runs once, and to its end
        gate.open()
        #expect(await eventually(timeout: 40) { finished.withLock { $0 } })
        #expect(runs.withLock { $0 } == 1)
        #expect(shared.startedCount == 1)
    }

    @Test func aCallerThatJoinsAndLeavesDoesNotCancelIt() async {
        let shared = SharedWork<String, Int>()
        let gate = Gate()
        let cancelled = Locked<Bool?>(nil)
        shared.start(for: "photo") {
            await gate.wait()
            cancelled.withLock { $0 = Task.isCancelled }
            return 7
        }
        // A caller joins it, then leaves
        let joined = Task { await shared.value(for: "photo") { 0 } }
        #expect(await eventually(timeout: 40) { shared.waitingCount == 1 })
        joined.cancel()
        #expect(await joined.value == nil)
        // The work was not cancelled: it ends normally, and a caller joining meanwhile gets its value
        let second = Task { await shared.value(for: "photo") { 0 } }
        #expect(await eventually(timeout: 40) { shared.waitingCount == 1 })
        gate.open()
        #expect(await second.value == 7)
        #expect(cancelled.withLock { $0 } == false)
        #expect(shared.startedCount == 1)
    }
}
