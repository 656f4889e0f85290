import KingfisherLocking
import Testing

@testable import Kingfisher

@Suite("Limiter: at most N at once, by priority, cancelled waiters leave")
struct LimiterStateMachineTests {
    private typealias Machine = Limiter.StateMachine<Int, UInt8, String>

    /// The action as text: `none`, `run`, `resume NAME` or `cancel NAME`.
    private func text<ID, Priority>(_ action: Limiter.StateMachine<ID, Priority, String>.Action) -> String {
        switch action {
        case .none: "none"
        case .run: "run"
        case .resume(let waiter): "resume \(waiter)"
        case .cancel(let waiter): "cancel \(waiter)"
        case .refuse(let waiter): "refuse \(waiter)"
        }
    }

    @Test("callers run up to the limit, then wait; a release hands the permit to the highest priority waiter")
    func permitsGoByPriorityThenArrival() {
        var machine = Machine(limit: 2)
        #expect(text(machine.acquire(0, priority: 17, waiter: "a")) == "run")
        #expect(text(machine.acquire(1, priority: 17, waiter: "b")) == "run")
        #expect(text(machine.acquire(2, priority: 9, waiter: "low")) == "none")
        #expect(text(machine.acquire(3, priority: 25, waiter: "high")) == "none")
        #expect(text(machine.acquire(4, priority: 25, waiter: "high later")) == "none")
        #expect(machine.holdingCount == 2 && machine.waitingCount == 3)
        #expect(text(machine.release(0)) == "resume high")
        #expect(text(machine.release(3)) == "resume high later")
        #expect(text(machine.release(1)) == "resume low")
        #expect(text(machine.release(4)) == "none" && text(machine.release(2)) == "none")
        #expect(machine.holdingCount == 0 && machine.waitingCount == 0)
    }

    @Test("a cancelled waiter leaves the queue and never gets a permit")
    func cancelledWaitersLeave() {
        var machine = Machine(limit: 1)
        #expect(text(machine.acquire(0, priority: 17, waiter: "holder")) == "run")
        #expect(text(machine.acquire(1, priority: 17, waiter: "gone")) == "none")
        #expect(text(machine.acquire(2, priority: 17, waiter: "next")) == "none")
        #expect(text(machine.cancel(1)) == "cancel gone")
        #expect(machine.waitingCount == 1)
        #expect(text(machine.release(0)) == "resume next")
        // A holder's cancellation leaves its permit alone; a second cancel of a waiter that left does nothing.
        #expect(text(machine.cancel(2)) == "none")
        #expect(machine.holdingCount == 1)
        #expect(text(machine.release(2)) == "none" && machine.holdingCount == 0)
    }

    @Test("a cancellation that comes before the request refuses the request")
    func cancellationBeforeTheRequest() {
        var machine = Machine(limit: 1)
        #expect(text(machine.cancel(7)) == "none")
        #expect(text(machine.acquire(7, priority: 17, waiter: "late")) == "cancel late")
        #expect(machine.holdingCount == 0 && machine.waitingCount == 0)
        #expect(text(machine.acquire(8, priority: 17, waiter: "other")) == "run")
    }

    @Test("stray cancellations (ones that lost a race with a release) are bounded and do not refuse others")
    func strayCancellationsAreBounded() {
        var machine = Machine(limit: 1)
        for id in 0..<5000 { _ = machine.cancel(id) }
        #expect(text(machine.acquire(10_000, priority: 17, waiter: "new")) == "run")
        _ = machine.release(10_000)
        // An early cancellation of the newest caller still refuses it.
        _ = machine.cancel(10_001)
        #expect(text(machine.acquire(10_001, priority: 17, waiter: "late")) == "cancel late")
    }

    @Test("a raised limit admits waiters at once, by priority; a lowered one lets holders finish first")
    func changedLimits() {
        var machine = Machine(limit: 1)
        #expect(text(machine.acquire(0, priority: 17, waiter: "holder")) == "run")
        #expect(text(machine.acquire(1, priority: 9, waiter: "low")) == "none")
        #expect(text(machine.acquire(2, priority: 25, waiter: "high")) == "none")
        #expect(text(machine.acquire(3, priority: 17, waiter: "medium")) == "none")
        #expect(machine.changeLimit(to: 3) == ["high", "medium"])
        #expect(machine.holdingCount == 3 && machine.waitingCount == 1)
        // Lowered below the holders: nobody is admitted until fewer than the new limit hold a permit.
        #expect(machine.changeLimit(to: 1).isEmpty)
        #expect(text(machine.release(0)) == "none" && text(machine.release(2)) == "none")
        #expect(text(machine.release(3)) == "resume low")
        #expect(machine.changeLimit(to: 0).isEmpty && machine.limit == 1)
    }

    @Test("a bounded queue refuses a caller beyond it at once; a freed place takes the next one")
    func boundedQueueRefuses() {
        var machine = Machine(limit: 1, maxWaiting: 1)
        #expect(text(machine.acquire(0, priority: 17, waiter: "holder")) == "run")
        #expect(text(machine.acquire(1, priority: 17, waiter: "queued")) == "none")
        #expect(text(machine.acquire(2, priority: 25, waiter: "turned away")) == "refuse turned away")
        #expect(machine.waitingCount == 1)
        #expect(text(machine.release(0)) == "resume queued")
        #expect(text(machine.acquire(3, priority: 17, waiter: "next")) == "none")
        var none = Machine(limit: 1, maxWaiting: 0)
        #expect(text(none.acquire(0, priority: 17, waiter: "a")) == "run")
        #expect(text(none.acquire(1, priority: 17, waiter: "b")) == "refuse b")
    }

    @Test("a waiter raised in priority overtakes those queued before it; never lowered")
    func raisedWaitersOvertake() {
        var machine = Machine(limit: 1)
        #expect(text(machine.acquire(0, priority: 17, waiter: "holder")) == "run")
        #expect(text(machine.acquire(1, priority: 17, waiter: "first")) == "none")
        #expect(text(machine.acquire(2, priority: 9, waiter: "raised")) == "none")
        machine.raise(2, to: 25)
        machine.raise(1, to: 9)
        #expect(machine.waitingPriorities == [17, 25])
        #expect(text(machine.release(0)) == "resume raised")
    }

    @Test("a release by someone who holds nothing changes nothing")
    func strayReleases() {
        var machine = Machine(limit: 1)
        #expect(text(machine.acquire(0, priority: 17, waiter: "holder")) == "run")
        #expect(text(machine.acquire(1, priority: 17, waiter: "waiting")) == "none")
        #expect(text(machine.release(5)) == "none")
        #expect(machine.holdingCount == 1 && machine.waitingCount == 1)
    }

    @Test("recorded events say who waits, who is admitted (at which priority), who leaves, who gives back")
    func eventsOfEachDecision() {
        var machine = Machine(limit: 1, maxWaiting: 2)
        _ = machine.acquire(0, priority: 17, waiter: "a")
        #expect(machine.takeEvents().isEmpty, "nothing is recorded unless asked")
        machine.recordsEvents = true
        _ = machine.acquire(1, priority: 9, waiter: "b")
        _ = machine.acquire(2, priority: 9, waiter: "c")
        _ = machine.acquire(3, priority: 9, waiter: "refused")
        machine.raise(2, to: 25)
        machine.raise(2, to: 17)  // never lowered: no event
        _ = machine.cancel(1)
        _ = machine.release(0)
        let events = machine.takeEvents().map { event -> String in
            switch event {
            case .waiting(let id, let priority): "waiting \(id) \(priority)"
            case .admitted(let id, let priority): "admitted \(id) \(priority)"
            case .raised(let id, let priority): "raised \(id) \(priority)"
            case .left(let id): "left \(id)"
            case .refused(let id): "refused \(id)"
            case .released(let id): "released \(id)"
            }
        }
        #expect(
            events == [
                "waiting 1 9", "waiting 2 9", "refused 3", "raised 2 25", "left 1", "released 0", "admitted 2 25",
            ])
        #expect(machine.takeEvents().isEmpty)
    }

    @Test("a withdrawn waiter leaves the queue and nothing remembers it (the downloader's queued tasks)")
    func withdrawnWaitersAreForgotten() {
        // The downloader's shape: identities of objects, Kingfisher's Float download priorities.
        final class Download {}
        var machine = Limiter.StateMachine<ObjectIdentifier, Float, String>(limit: 1)
        let downloads = (holder: Download(), first: Download(), urgent: Download())
        let holder = ObjectIdentifier(downloads.holder)
        let first = ObjectIdentifier(downloads.first)
        let urgent = ObjectIdentifier(downloads.urgent)
        #expect(text(machine.acquire(holder, priority: 0.5, waiter: "holder")) == "run")
        #expect(text(machine.acquire(first, priority: 0.5, waiter: "first")) == "none")
        #expect(text(machine.acquire(urgent, priority: 0.75, waiter: "urgent")) == "none")
        #expect(machine.withdraw(urgent) == "urgent")
        #expect(machine.withdraw(urgent) == nil)
        #expect(machine.waitingPriorities == [0.5])
        // Unlike a cancelled id, a withdrawn one that asks again is queued, not refused.
        #expect(text(machine.acquire(urgent, priority: 1, waiter: "urgent again")) == "none")
        #expect(text(machine.release(holder)) == "resume urgent again")
        #expect(machine.holdingCount == 1 && machine.waitingCount == 1)
    }
}

@Suite("Limiter with tasks")
struct LimiterTests {
    @Test("never more than the limit at once")
    func boundsConcurrency() async throws {
        let limiter = Limiter(limit: 3)
        let counts = Locked((now: 0, most: 0))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<40 {
                group.addTask {
                    try await limiter.withPermit {
                        counts.withLock {
                            $0.now += 1
                            $0.most = max($0.most, $0.now)
                        }
                        await Task.yield()
                        counts.withLock { $0.now -= 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(counts.withLock { $0.most } == 3)
        #expect(limiter.holdingCount == 0 && limiter.waitingCount == 0)
    }

    @Test("a cancelled waiter's body never runs, and the queue behind it moves on")
    func cancelledWaiterNeverRuns() async throws {
        let limiter = Limiter(limit: 1)
        let log = HookLog<Limiter.Event>()
        limiter.observer = log.observer
        let (released, release) = AsyncStream.makeStream(of: Void.self)
        let ran = Locked<[String]>([])
        let holder = Task {
            try await limiter.withPermit {
                for await _ in released { break }
                ran.withLock { $0.append("holder") }
            }
        }
        #expect(await log.wait { $0.contains { $0.id == 0 && $0.isAdmitted } })
        let cancelled = Task { try await limiter.withPermit { ran.withLock { $0.append("cancelled") } } }
        #expect(await log.wait { $0.waiting == [1] })
        let next = Task { try await limiter.withPermit { ran.withLock { $0.append("next") } } }
        #expect(await log.wait { $0.waiting == [1, 2] })
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(log.events.contains(.left(id: 1)))
        #expect(limiter.waitingCount == 1)
        release.yield()
        try await holder.value
        try await next.value
        #expect(ran.withLock { $0 } == ["holder", "next"])
        // The cancelled caller left and was never admitted; the next one was admitted once the holder gave back
        let events = log.events
        #expect(!events.contains { $0.id == 1 && $0.isAdmitted })
        let handOver = try #require(events.firstIndex(of: .released(id: 0)))
        #expect(events[handOver...].dropFirst().first.map { $0.id == 2 && $0.isAdmitted } == true)
    }

    @Test("a task cancelled before it asks does not run")
    func alreadyCancelled() async throws {
        let limiter = Limiter(limit: 1)
        let log = HookLog<Limiter.Event>()
        limiter.observer = log.observer
        let ran = Locked(false)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await limiter.withPermit { ran.withLock { $0 = true } }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(!ran.withLock { $0 })
        #expect(limiter.holdingCount == 0)
        #expect(log.events == [.left(id: 0)])
    }

    @Test("waiters go highest priority first")
    func priorityOrder() async throws {
        let limiter = Limiter(limit: 1)
        let log = HookLog<Limiter.Event>()
        limiter.observer = log.observer
        let (released, release) = AsyncStream.makeStream(of: Void.self)
        let order = Locked<[String]>([])
        let holder = Task {
            try await limiter.withPermit {
                for await _ in released { break }
            }
        }
        #expect(await log.wait { $0.contains { $0.id == 0 && $0.isAdmitted } })
        let low = Task(priority: .low) { try await limiter.withPermit { order.withLock { $0.append("low") } } }
        #expect(await log.wait { $0.waiting == [1] })
        let high = Task(priority: .high) { try await limiter.withPermit { order.withLock { $0.append("high") } } }
        #expect(await log.wait { $0.waiting == [1, 2] })
        release.yield()
        try await holder.value
        try await low.value
        try await high.value
        #expect(order.withLock { $0 } == ["high", "low"])
        // As the limiter told it: each waited at its task's priority, and the high one was admitted first
        let events = log.events
        #expect(events.contains(.waiting(id: 1, priority: .low)))
        #expect(events.contains(.waiting(id: 2, priority: .high)))
        let admitted = events.filter(\.isAdmitted).map(\.id)
        #expect(admitted == [0, 2, 1])
    }

    @Test("the observer is told each decision after the lock, in order, and may ask the limiter back")
    func observerMayCallBack() async throws {
        let limiter = Limiter(limit: 2)
        let seen = Locked<[(Limiter.Event, holding: Int)]>([])
        limiter.observer = { [limiter] event in seen.withLock { $0.append((event, limiter.holdingCount)) } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 { group.addTask { try await limiter.withPermit { await Task.yield() } } }
            try await group.waitForAll()
        }
        let events = seen.withLock { $0.map(\.0) }
        // Each caller admitted once and released once, never more than two holding by the events' account
        #expect(Set(events.filter(\.isAdmitted).map(\.id)) == Set(0..<20))
        #expect(events.filter { if case .released = $0 { true } else { false } }.count == 20)
        var holding = 0
        var most = 0
        for event in events {
            if event.isAdmitted { holding += 1 }
            if case .released = event { holding -= 1 }
            most = max(most, holding)
        }
        #expect(most == 2 && holding == 0)
        limiter.observer = nil
        try await limiter.withPermit {}
        #expect(seen.withLock { $0.count } == events.count)
    }
}
