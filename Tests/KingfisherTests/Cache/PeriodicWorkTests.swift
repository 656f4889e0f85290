import Foundation
import KingfisherLocking
import KingfisherTestSupport
import Testing

@testable import Kingfisher

/// An owner's periodic upkeep: jobs run at their own intervals from one runner, stop when they say so or are
/// cancelled, and a job added with a shorter interval than the others does not wait for theirs. Each owner has its
/// own: two caches share nothing. Time is a manual clock the tests move, except where the runner task itself is
/// under test; either way the tests wait on the work's events, never for a while.
@Suite(.timeLimit(.minutes(1)))
struct PeriodicWorkTests {
    /// A manual-clock work whose events `log` records.
    private func manualWork() -> (PeriodicWork, HookLog<PeriodicWork.Event>) {
        let work = PeriodicWork(timing: .manual)
        let log = HookLog<PeriodicWork.Event>()
        work.observer = log.observer
        return (work, log)
    }

    private func turns(of job: Int?, in log: HookLog<PeriodicWork.Event>) -> Int {
        log.events.filter { $0 == .due(job: job ?? -1) }.count
    }

    @Test func aShortJobAddedAfterALongOneRunsAtItsOwnInterval() async throws {
        // Given the real runner asleep for a job due in an hour, then a job every 10 ms
        let work = PeriodicWork()
        let log = HookLog<PeriodicWork.Event>()
        work.observer = log.observer
        let long = try #require(work.every(3600) { true })
        let short = try #require(work.every(0.01) { true })
        // Then the short one runs again and again without waiting for the long one
        #expect(await log.wait { $0.filter { $0 == .ran(job: short, continues: true) }.count >= 3 })
        #expect(!log.events.contains(.due(job: long)))
        work.cancel(short)
        work.cancel(long)
        #expect(work.jobCount == 0)
        // And an owner with no jobs has no task
        #expect(!work.hasRunner)
    }

    @Test func jobsRunAtTheirOwnIntervalsAsTheClockMoves() throws {
        let (work, log) = manualWork()
        let long = work.every(1) { true }
        let short = work.every(0.01) { true }
        // A manual clock starts no task; the jobs run when it moves, on this thread
        #expect(!work.hasRunner)
        work.advance(by: .milliseconds(35))
        #expect(turns(of: short, in: log) == 3)
        #expect(turns(of: long, in: log) == 0)
        work.advance(by: .milliseconds(965))
        #expect(turns(of: long, in: log) == 1)
        #expect(turns(of: short, in: log) == 100)
    }

    @Test func aJobThatReturnsFalseIsNotCalledAgain() throws {
        let (work, log) = manualWork()
        let calls = Locked(0)
        let job = try #require(
            work.every(0.005) {
                calls.withLock { $0 += 1 }
                return false
            })
        work.advance(by: .milliseconds(5))
        #expect(log.events.suffix(3) == [.due(job: job), .ran(job: job, continues: false), .stopped(job: job)])
        #expect(work.jobCount == 0)
        // However far the clock moves afterwards
        work.advance(by: .seconds(10))
        #expect(calls.withLock { $0 } == 1)
    }

    @Test func aCancelledJobIsNotCalledAgain() throws {
        let (work, log) = manualWork()
        let calls = Locked(0)
        let job = try #require(
            work.every(0.005) {
                calls.withLock { $0 += 1 }
                return true
            })
        work.advance(by: .milliseconds(5))
        #expect(calls.withLock { $0 } == 1)
        work.cancel(job)
        #expect(log.events.last == .stopped(job: job))
        work.advance(by: .seconds(10))
        #expect(calls.withLock { $0 } == 1)
        #expect(work.jobCount == 0)
    }

    @Test func aJobCancelledWhileItRunsFinishesThatCallOnly() async throws {
        // Given the real runner in the middle of a call
        let work = PeriodicWork()
        let log = HookLog<PeriodicWork.Event>()
        work.observer = log.observer
        let inside = DispatchSemaphore(value: 0)
        let goOn = DispatchSemaphore(value: 0)
        let job = try #require(
            work.every(0.005) {
                inside.signal()
                goOn.wait()
                return true
            })
        await log.wait(for: .due(job: job))
        inside.wait()
        // When it is cancelled then
        work.cancel(job)
        goOn.signal()
        // Then that call ends, and the job and the runner are gone: nothing is left to call it again
        #expect(await log.wait(for: .ran(job: job, continues: true)))
        #expect(log.events.filter { $0 == .due(job: job) }.count == 1)
        #expect(work.jobCount == 0)
        #expect(!work.hasRunner)
    }

    @Test func aMemoryStorageReleasedEndsItsJob() throws {
        let (work, log) = manualWork()
        var memory: MemoryStorage.Backend<KFCrossPlatformImage>? = MemoryStorage.Backend(
            config: .init(totalCostLimit: 0, cleanInterval: 3600), periodicWork: work)
        let job = try #require(memory?.cleanerJob)
        #expect(work.isScheduled(job))
        memory = nil
        #expect(!work.isScheduled(job))
        #expect(log.events.last == .stopped(job: job))
    }

    @Test func aMemoryStorageMadeAloneHasItsOwn() throws {
        let first = MemoryStorage.Backend<KFCrossPlatformImage>(config: .init(totalCostLimit: 0, cleanInterval: 3600))
        let second = MemoryStorage.Backend<KFCrossPlatformImage>(
            config: .init(totalCostLimit: 0, cleanInterval: 3600))
        #expect(first.periodicWork !== second.periodicWork)
        #expect(first.periodicWork.jobCount == 1 && second.periodicWork.jobCount == 1)
    }

    @Test func nothingIsScheduledForAnIntervalOfZero() {
        let work = PeriodicWork()
        #expect(work.every(0) { true } == nil)
        #expect(work.every(.infinity) { true } == nil)
        #expect(work.jobCount == 0)
        #expect(!work.hasRunner)
    }

    @Test func twoCachesPeriodicWorkIsIndependent() async throws {
        try await withTemporaryDirectory { directory in
            // Given two caches, each with a memory clean and a disk sweep on a manual clock of its own
            let clock = TestClock()
            func cache(_ name: String) throws -> (ImageCache, HookLog<PeriodicWork.Event>) {
                let work = PeriodicWork(timing: .manual)
                let log = HookLog<PeriodicWork.Event>()
                work.observer = log.observer
                var memoryConfig = MemoryStorage.Config(totalCostLimit: 0, cleanInterval: 60)
                memoryConfig.now = clock.now
                var disk = diskConfig(directory.appendingPathComponent(name), clock: clock, name: name)
                disk.sweepInterval = 120
                let cache = ImageCache(
                    memoryStorage: MemoryStorage.Backend(config: memoryConfig, periodicWork: work),
                    diskStorage: try DiskStorage.Backend<Data>(config: disk))
                return (cache, log)
            }
            let (first, firstLog) = try cache("first")
            let (second, secondLog) = try cache("second")
            #expect(first.periodicWork !== second.periodicWork)
            // Both of a cache's jobs are on its own work
            #expect(first.periodicWork.jobCount == 2 && second.periodicWork.jobCount == 2)
            let firstSweep = try #require(first.sweeper.timerJob)
            for (cache, key) in [(first, "a"), (second, "b")] {
                cache.memoryStorage.store(
                    value: Fixtures.gradient(width: 4, height: 4), forKey: key, expiration: .seconds(10))
            }
            clock.advance(by: 20)
            // When the first's clock moves past both intervals
            first.periodicWork.advance(by: .seconds(120))
            // Then its memory was cleaned and its sweep ran; the second's jobs never had a turn
            #expect(first.memoryStorage.count == 0)
            #expect(firstLog.events.contains(.ran(job: firstSweep, continues: true)))
            #expect(second.memoryStorage.count == 1)
            #expect(!secondLog.events.contains { if case .due = $0 { true } else { false } })
            // When the first's jobs are cancelled, the second's are still there, and run when its clock moves
            for job in [first.memoryStorage.cleanerJob, first.sweeper.timerJob] { first.periodicWork.cancel(job) }
            #expect(first.periodicWork.jobCount == 0)
            #expect(second.periodicWork.jobCount == 2)
            second.periodicWork.advance(by: .seconds(60))
            #expect(second.memoryStorage.count == 0)
        }
    }
}
