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

/// Joining in two steps, with guests the work sees, and one attachment per run.
@Suite(.timeLimit(.minutes(1)))
struct SharedWorkGuestTests {
    @Test func theWorkSeesTheGuestsOfTheWaitersStillThere() async {
        let shared = SharedWork<String, [String]>()
        let gate = Gate()
        // Given three callers joining at once, without waiting yet
        let tickets = ["a", "b", "c"].map { name in
            shared.join("k", guest: name) { run in
                await gate.wait()
                return run.guests(as: String.self)
            }
        }
        #expect(tickets.map(\.isNew) == [true, false, false])
        #expect(tickets.allSatisfy { $0.run === tickets[0].run })
        // When one leaves before the value is there
        tickets[1].leave()
        #expect(tickets[0].run.guests(as: String.self) == ["a", "c"])
        gate.open()
        // Then the others get the value, made while only they waited; the one that left gets nil
        #expect(await tickets[0].value() == ["a", "c"])
        #expect(await tickets[2].value() == ["a", "c"])
        #expect(await tickets[1].value() == nil)
        #expect(shared.startedCount == 1 && shared.waitingCount == 0)
    }

    @Test func theLastTicketLeavingCancelsTheWork() async {
        let shared = SharedWork<String, Bool>()
        let started = Gate()
        let tickets = (0..<2).map { _ in
            shared.join("k", guest: ()) { _ in
                started.open()
                // Ends when cancelled.
                while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
                return Task.isCancelled
            }
        }
        await started.wait()
        let waiting = Task { await tickets[0].value() }
        for ticket in tickets { ticket.leave() }
        #expect(await waiting.value == nil)
        // The key is free: the next caller starts the work again.
        let next = shared.join("k", guest: ()) { _ in false }
        #expect(next.isNew)
        #expect(await next.value() == false)
    }

    @Test func aRunAttachesOneValueForAllItsCallers() {
        let shared = SharedWork<String, Int>()
        let gate = Gate()
        let first = shared.join("k", guest: ()) { _ in
            await gate.wait()
            return 1
        }
        let second = shared.join("k", guest: ()) { _ in 2 }
        let made = Locked(0)
        let a = first.run.attachment {
            made.withLock { $0 += 1 }
            return "handle"
        }
        let b = second.run.attachment {
            made.withLock { $0 += 1 }
            return "other"
        }
        #expect(a == "handle" && b == "handle" && made.withLock { $0 } == 1)
        #expect(second.run.attachment(as: String.self) == "handle")
        first.leave()
        second.leave()
        gate.open()
    }

    @Test func escalatingAWaiterEscalatesTheWork() async {
        let shared = SharedWork<String, TaskPriority>()
        let gate = Gate()
        let started = Gate()
        let low = Task(priority: .low) {
            await shared.value(for: "k") {
                started.open()
                await gate.wait()
                return Task.currentPriority
            }
        }
        await started.wait()
        low.escalatePriority(to: .high)
        gate.open()
        let priority = await low.value
        #expect(priority.map { $0 >= .high } == true)
    }
}
