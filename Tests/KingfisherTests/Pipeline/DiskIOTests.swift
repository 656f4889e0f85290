import Foundation
import KingfisherLocking
import Testing

@testable import Kingfisher

@Suite("DiskIO: shared jobs together up to the limit, exclusive ones alone, in submission order")
struct DiskIOStateMachineTests {
    private typealias Machine = DiskIO.StateMachine<String>

    private func names(_ started: [(String, DiskIO.Access)]) -> [String] { started.map(\.0) }

    @Test("shared jobs start together up to the limit; the next starts when one finishes")
    func sharedJobsUpToTheLimit() {
        var machine = Machine(limit: 2)
        #expect(names(machine.submit("a", .shared)) == ["a"])
        #expect(names(machine.submit("b", .shared)) == ["b"])
        #expect(names(machine.submit("c", .shared)).isEmpty)
        #expect(machine.runningCount == 2 && machine.waitingCount == 1)
        #expect(names(machine.finish(.shared)) == ["c"])
        #expect(names(machine.finish(.shared)).isEmpty && names(machine.finish(.shared)).isEmpty)
        #expect(machine.runningCount == 0)
    }

    @Test("an exclusive job waits for the jobs before it, and the jobs after it wait for it")
    func exclusiveJobsAreBarriers() {
        var machine = Machine(limit: 4)
        #expect(names(machine.submit("read", .shared)) == ["read"])
        #expect(names(machine.submit("remove", .exclusive)).isEmpty)
        // A shared job after the exclusive one does not overtake it, though a thread is free.
        #expect(names(machine.submit("later read", .shared)).isEmpty)
        #expect(names(machine.finish(.shared)) == ["remove"])
        #expect(machine.runningCount == 1 && machine.waitingCount == 1)
        #expect(names(machine.submit("write", .shared)).isEmpty)
        #expect(names(machine.finish(.exclusive)) == ["later read", "write"])
        #expect(names(machine.submit("sweep", .exclusive)).isEmpty)
        #expect(names(machine.finish(.shared)).isEmpty)
        #expect(names(machine.finish(.shared)) == ["sweep"])
    }

    @Test("a long run of jobs keeps the queue short")
    func queueIsCompacted() {
        var machine = Machine(limit: 1)
        for index in 0..<10_000 {
            #expect(names(machine.submit("\(index)", .shared)) == ["\(index)"])
            #expect(names(machine.finish(.shared)).isEmpty)
        }
        #expect(machine.waitingCount == 0 && machine.runningCount == 0)
    }

    /// Stands for a job's closure and what it captured (a body being written).
    private final class Payload: Sendable {}

    @Test("a started job is not kept by the queue: what it captured is freed when its runner lets it go")
    func startedJobsAreReleased() {
        var machine = DiskIO.StateMachine<Payload>(limit: 2)
        weak var first: Payload?
        weak var second: Payload?
        do {
            let one = Payload()
            let two = Payload()
            first = one
            second = two
            #expect(machine.submit(one, .shared).count == 1)
            #expect(machine.submit(two, .exclusive).isEmpty)
        }
        // The first one started and was handed out; the runner dropped it. The second still waits, and is kept.
        #expect(first == nil)
        #expect(second != nil)
        #expect(machine.finish(.shared).count == 1)
        #expect(second == nil)
        #expect(machine.waitingCount == 0)
    }
}

@Suite("DiskIO on threads", .timeLimit(.minutes(1)))
struct DiskIOTests {
    /// The most jobs running at once by the queue's events, and whether an exclusive job ever ran beside another.
    private func overlap(_ events: [DiskIO.Event]) -> (most: Int, exclusiveShared: Bool) {
        var running: [Int: DiskIO.Access] = [:]
        var most = 0
        var shared = false
        for event in events {
            switch event {
            case .queued: break
            case .started(let job, let access):
                if access == .exclusive && !running.isEmpty || running.values.contains(.exclusive) { shared = true }
                running[job] = access
                most = max(most, running.count)
            case .finished(let job, _):
                running[job] = nil
            }
        }
        return (most, shared)
    }

    @Test("never more shared jobs at once than the limit; a removal sees every write queued before it")
    func boundedAndOrdered() async {
        let io = DiskIO(limit: 3)
        let log = HookLog<DiskIO.Event>()
        io.observer = log.observer
        let entries = Locked<[String]>([])
        // Given 24 writes, each held until the test lets it go
        let gate = DispatchSemaphore(value: 0)
        for index in 0..<24 {
            io.submit {
                gate.wait()
                entries.withLock { $0.append("write \(index)") }
            }
        }
        // Then three started, and the queue said so of no fourth: the others wait while those hold their threads
        #expect(await log.wait { $0.filter { if case .queued = $0 { true } else { false } }.count == 24 })
        let started = log.events.compactMap { if case .started(let job, _) = $0 { job } else { nil } }
        #expect(started == [0, 1, 2])
        #expect(io.runningCount == 3 && io.waitingCount == 21)
        // When they are let go, with six more writes and a removal queued behind them
        for _ in 0..<24 { gate.signal() }
        for index in 0..<6 { io.submit { entries.withLock { $0.append("late \(index)") } } }
        await io.perform(.exclusive) { entries.withLock { $0.append("remove") } }
        #expect(await log.wait(for: .finished(job: 30, .exclusive)))
        // Then never more than three ran at once, the removal ran alone, after every job submitted before it
        let events = log.events
        let (most, exclusiveShared) = overlap(events)
        #expect(most == 3)
        #expect(!exclusiveShared)
        #expect(events.last == .finished(job: 30, .exclusive))
        #expect(entries.withLock { $0.last } == "remove" && entries.withLock { $0.count } == 31)
    }

    @Test("an unobserved queue records nothing; an observer sees each job queued, started and finished in order")
    func eventsOfOneJob() async {
        let io = DiskIO(limit: 1)
        await io.perform {}
        let log = HookLog<DiskIO.Event>()
        io.observer = log.observer
        await io.perform(.exclusive) {}
        #expect(await log.wait(for: .finished(job: 1, .exclusive)))
        #expect(
            log.events == [.queued(job: 1, .exclusive), .started(job: 1, .exclusive), .finished(job: 1, .exclusive)])
    }
}
