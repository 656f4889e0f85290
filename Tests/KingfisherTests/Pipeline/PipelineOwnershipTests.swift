import Foundation
import KingfisherLocking
import KingfisherTestSupport
import Testing

@testable import Kingfisher

/// Each manager's pipeline owns its limits: nothing about decoding is process-wide.
@Suite(.timeLimit(.minutes(2)))
struct PipelineOwnershipTests {
    @Test func twoManagersKeepTheirOwnDecodeLimitsAndNeverWaitForEachOther() async throws {
        try await withTemporaryDirectory { directory in
            let narrow = KingfisherManager(
                downloader: ImageDownloader(name: "narrow"),
                cache: try makeCache(in: directory.appendingPathComponent("narrow")))
            let wide = KingfisherManager(
                downloader: ImageDownloader(name: "wide"),
                cache: try makeCache(in: directory.appendingPathComponent("wide")))
            var one = narrow.engine
            one.decodeConcurrency = 1
            narrow.engine = one
            var three = wide.engine
            three.decodeConcurrency = 3
            wide.engine = three
            let (narrowLane, wideLane) = (narrow.pipeline.workers.lane, wide.pipeline.workers.lane)
            #expect(narrowLane.threads == 1 && wideLane.threads == 3)
            let narrowEvents = narrowLane.watched()
            // Given the narrow manager's one decode thread busy
            let blocker = await LaneBlocker(lane: narrowLane, threads: 1)
            // a retrieval through it waits for that thread
            let png = Fixtures.png(width: 20, height: 10)
            let waiting = Task {
                try await narrow.retrieveImage(with: .provider(RawImageDataProvider(data: png, cacheKey: "narrow")))
            }
            #expect(await narrowEvents.wait { $0.waiting.count == 1 })
            // while three retrievals through the wide manager decode meanwhile, on its own threads
            let startedBefore = wideLane.startedCount
            try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<3 {
                    group.addTask {
                        let provider = RawImageDataProvider(data: png, cacheKey: "wide-\(index)")
                        return try await wide.retrieveImage(with: .provider(provider)).image.pixelWidth
                    }
                }
                for try await width in group { #expect(width == 20) }
            }
            // (a decode and an encode for the disk each)
            #expect(wideLane.startedCount == startedBefore + 6)
            #expect(narrowLane.waitingCount == 1)
            // When the narrow thread frees, its retrieval decodes there
            blocker.release()
            #expect(try await waiting.value.image.pixelWidth == 20)
            #expect(wideLane.startedCount == startedBefore + 6)
        }
    }

    @Test func aLimitChangedWhileWorkWaitsLetsTheWaitingWorkRun() async throws {
        let lane = PriorityThreadPool(threads: 1)
        let events = lane.watched()
        let blocker = await LaneBlocker(lane: lane, threads: 1)
        let ran = Task { await lane.run { 7 } }
        #expect(await events.wait { $0.waiting.count == 1 })
        // Raised to two threads, the waiting job runs beside the busy one.
        lane.threads = 2
        #expect(await ran.value == 7)
        blocker.release()
    }
}

/// A decode whose caller left while it ran still holds its thread: the next job waits for it to end, and the
/// abandoned caller's value is dropped.
@Suite(.timeLimit(.minutes(1)))
struct AbandonedRunningDecodeTests {
    @Test func aJobWhoseCallerLeftKeepsItsPermitUntilItEndsAndItsValueIsDropped() async throws {
        let lane = PriorityThreadPool(threads: 1)
        let events = lane.watched()
        let gate = DispatchSemaphore(value: 0)
        let started = ResultlessCounter()
        // Given a job running for a caller that then leaves
        let abandoned = Task {
            await lane.runUnlessCancelled {
                started.increment()
                gate.wait()
                return 1
            }
        }
        await started.wait(for: 1)
        abandoned.cancel()
        // When another job asks for the thread, it waits: the abandoned one still runs
        let next = Task { await lane.run { 2 } }
        #expect(await events.wait { $0.waiting.count == 1 })
        // and runs once the abandoned one has ended, whose caller gets nothing
        gate.signal()
        #expect(await abandoned.value == nil)
        #expect(await next.value == 2)
        #expect(lane.waitingCount == 0)
    }

    @Test func jobsRunOnTheLanesThreadsNotTheCallersPool() async {
        let lane = PriorityThreadPool(threads: 2)
        let names = await lane.run { Thread.current.name ?? "" }
        let unlimited = await lane.runUnlessCancelled { Thread.current.name ?? "" }
        #expect(names.hasPrefix("TP-"))
        #expect(unlimited?.hasPrefix("TP-") == true)
    }
}
