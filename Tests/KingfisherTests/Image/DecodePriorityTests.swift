import Foundation
import KingfisherLocking
import KingfisherTestSupport
import Testing

@testable import Kingfisher

/// An owner's workers take waiting work by task priority, and shared work runs at the highest priority of its
/// waiters (the shared decode of `SharedWork`, and a shared download's decodes).
@Suite(.timeLimit(.minutes(2)))
struct DecodePriorityTests {
    @Test func waitingJobsRunHighestPriorityFirstAndInOrderAmongEquals() async {
        let lane = PriorityThreadPool(threads: 1)
        let events = lane.watched()
        let blocker = await LaneBlocker(lane: lane, threads: 1)
        let log = OrderLog()
        // Given the only thread busy, five jobs queued in this order (each seen waiting before the next is asked)
        var jobs: [Task<Void, Never>] = []
        for (name, priority) in [
            ("low", TaskPriority.low), ("medium", .medium), ("high-1", .high), ("background", .background),
            ("high-2", .high),
        ] {
            let queued = jobs.count
            jobs.append(Task(priority: priority) { await lane.run { log.append(name) } })
            #expect(await events.wait { $0.waiting.count == queued + 1 })
        }
        #expect(lane.waitingCount == 5)
        // When the thread frees (awaiting the jobs' values would raise their priority to this test's)
        blocker.release()
        #expect(await events.wait { $0.filter(\.isAdmitted).count == 6 })
        for job in jobs { await job.value }
        // Then they ran by priority, first come first among equals
        #expect(log.entries == ["high-1", "high-2", "medium", "low", "background"])
    }

    @Test func aQueuedDecodeWhoseCallerIsCancelledNeverRuns() async {
        let lane = PriorityThreadPool(threads: 1)
        let events = lane.watched()
        let blocker = await LaneBlocker(lane: lane, threads: 1)
        let log = OrderLog()
        // Given the only thread busy, a decode queued for a caller that then goes away, and one behind it
        let gone = Task { await lane.runUnlessCancelled { log.append("gone") } }
        #expect(await events.wait { $0.waiting.count == 1 })
        let kept = Task { await lane.runUnlessCancelled { log.append("kept") } }
        #expect(await events.wait { $0.waiting.count == 2 })
        let startedBefore = lane.startedCount
        gone.cancel()
        // Then it leaves the queue at once, unrun, and the one behind it runs when the thread frees
        #expect(await gone.value == nil)
        #expect(lane.waitingCount == 1 && lane.leftCount == 1)
        blocker.release()
        #expect(await kept.value != nil)
        #expect(log.entries == ["kept"])
        #expect(lane.startedCount == startedBefore + 1)
    }

    /// One busy thread; behind it a shared decode ("shared", value 1) queued at low priority, then a job
    /// ("other") at medium priority.
    private struct QueuedBehindABusyThread {
        let lane = PriorityThreadPool(threads: 1)
        let events: HookLog<Limiter.Event>
        let blocker: LaneBlocker
        let log = OrderLog()
        let shared = SharedWork<String, Int>()
        let first: Task<Int?, Never>
        let other: Task<Void, Never>

        init() async {
            let events = lane.watched()
            self.events = events
            blocker = await LaneBlocker(lane: lane, threads: 1)
            let (lane, log, shared) = (self.lane, self.log, self.shared)
            first = Task(priority: .low) {
                await shared.value(for: "photo") {
                    await lane.run {
                        log.append("shared")
                        return 1
                    }
                }
            }
            #expect(await events.wait { $0.waiting.count == 1 })
            other = Task(priority: .medium) { await lane.run { log.append("other") } }
            #expect(await events.wait { $0.waiting.count == 2 })
        }
    }

    @Test func sharedWorkThatAHigherPriorityCallerJoinsOvertakesWorkQueuedBeforeIt() async {
        // Given the only thread busy, a shared decode queued at low priority, then another job at medium priority
        let queued = await QueuedBehindABusyThread()
        #expect(queued.lane.waitingPriorities == [.low, .medium])
        // When a high-priority caller joins the shared decode
        let shared = queued.shared
        let second = Task(priority: .high) { await shared.value(for: "photo") { 2 } }
        #expect(await queued.events.wait { $0.waitingWithPriorities.contains { $0.priority == .high } })
        queued.blocker.release()
        // Then the shared decode ran first, once, and both callers got its value
        #expect(await queued.first.value == 1)
        #expect(await second.value == 1)
        await queued.other.value
        #expect(queued.log.entries == ["shared", "other"])
        #expect(shared.startedCount == 1)
    }

    @Test func workNobodyJoinedKeepsItsPriority() async {
        // Given a low-priority shared decode and a medium-priority job queued behind a busy thread
        let queued = await QueuedBehindABusyThread()
        // When a caller of the same low priority joins, and the thread frees
        let shared = queued.shared
        let second = Task(priority: .low) { await shared.value(for: "photo") { 2 } }
        #expect(await eventually(timeout: 40) { shared.waitingCount == 2 })
        queued.blocker.release()
        // (Awaiting a caller's value before both ran would escalate it, and the shared work with it.)
        #expect(await eventually(timeout: 40) { queued.log.entries.count == 2 })
        _ = await (queued.first.value, second.value, queued.other.value)
        // Then the medium-priority job went first
        #expect(queued.log.entries == ["other", "shared"])
    }

    @Test func aSharedDownloadDecodesAtTheHighestPriorityOfItsCallers() async throws {
        let threads = 3
        var engine = ImageEngine.Configuration.default
        engine.decodeConcurrency = threads
        engine.largeDecodesOneAtATime = false
        var configuration = ImageDownloader.Configuration()
        configuration.engine = engine
        try await withDownloader(configuration: configuration) { server, downloader in
            server.route("/photo.png", .ok(Fixtures.png(width: 40, height: 30)))
            let lane = downloader.workers.lane
            let events = lane.watched()
            let blocker = await LaneBlocker(lane: lane, threads: threads)
            let log = OrderLog()
            let recorder = RecordingProcessor(log: log)
            // Given every decode thread busy, the photo downloaded at low priority and waiting to be decoded
            let low = Task(priority: .low) {
                try await downloader.downloadImage(with: server.url("/photo.png"), options: [.processor(recorder)])
            }
            #expect(await events.wait { $0.waiting.count == 1 })
            // and another decode queued behind it at medium priority
            let other = Task(priority: .medium) {
                await lane.run { log.append("other") }
            }
            #expect(await events.wait { $0.waiting.count == 2 })
            // When a high-priority caller asks for the same photo while it waits
            let high = Task(priority: .high) {
                try await downloader.downloadImage(with: server.url("/photo.png"), options: [.processor(recorder)])
            }
            #expect(await events.wait { $0.waitingWithPriorities.contains { $0.priority == .high } })
            // and one decode thread frees (the others stay busy, so the waiting jobs run one after the other)
            blocker.release(1)
            await other.value
            // Then it took the shared download's decode first, not the medium-priority job queued before the join
            #expect(
                Array(log.entries.prefix(2)) == ["photo", "other"], "\(log.entries) hits \(server.hits("/photo.png"))")
            blocker.release()
            _ = try await (low.value, high.value)
            // and the photo was fetched once and processed once: the late caller shared the decode it joined
            #expect(server.hits("/photo.png") == 1)
            #expect(log.entries.filter { $0 == "photo" }.count == 1)
        }
    }
}

private final class OrderLog: Sendable {
    private let state = Locked<[String]>([])
    var entries: [String] { state.withLock { $0 } }
    func append(_ entry: String) { state.withLock { $0.append(entry) } }
}

/// A processor that notes each run in a log.
private struct RecordingProcessor: ImageProcessor {
    let identifier = "test.recording-order"
    let log: OrderLog

    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        log.append("photo")
        return DefaultImageProcessor.default.process(item: item, options: options)
    }
}
