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
    @Test("never more shared jobs at once than the limit; a removal sees every write queued before it")
    func boundedAndOrdered() async {
        let io = DiskIO(limit: 3)
        let running = Locked((now: 0, most: 0))
        let log = Locked<[String]>([])
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<24 {
                group.addTask {
                    await io.perform {
                        running.withLock {
                            $0.now += 1
                            $0.most = max($0.most, $0.now)
                        }
                        Thread.sleep(forTimeInterval: 0.002)
                        log.withLock { $0.append("write \(index)") }
                        running.withLock { $0.now -= 1 }
                    }
                }
            }
        }
        #expect(running.withLock { $0.most } <= 3)
        // Submitted in order from one thread: the exclusive job runs after every shared one before it.
        let done = Locked(false)
        for index in 0..<6 { io.submit { log.withLock { $0.append("late \(index)") } } }
        await io.perform(.exclusive) {
            log.withLock { $0.append("remove") }
            done.withLock { $0 = true }
        }
        let entries = log.withLock { $0 }
        #expect(entries.last == "remove" && entries.count == 31)
        #expect(done.withLock { $0 })
    }
}
