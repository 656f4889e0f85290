import Foundation
import KingfisherLocking
import KingfisherTestSupport
import Testing

@testable import Kingfisher

/// A retrieval that goes away while its decode waits for a thread takes the decode with it: the decode leaves the
/// queue and never runs (a gallery tile scrolled away costs no decode).
@Suite(.timeLimit(.minutes(2)))
struct CancelledDecodeTests {
    @Test func aDiskHitWhoseRetrievalIsCancelledWhileItsDecodeWaitsIsNeverDecoded() async throws {
        try await withTemporaryDirectory { directory in
            let threads = 5
            var engine = ImageEngine.Configuration.default
            engine.decodeConcurrency = threads
            let cache = try makeCache(in: directory)
            try await cache.storeToDisk(Fixtures.png(width: 32, height: 24), forKey: "tile")
            let manager = KingfisherManager(downloader: ImageDownloader(name: "cancelled-decode"), cache: cache)
            manager.engine = engine
            let lane = manager.pipeline.workers.lane
            let events = lane.watched()
            // Given every decode thread busy
            let blocker = await LaneBlocker(lane: lane, threads: threads)
            let startedBefore = lane.startedCount
            // and a retrieval whose disk hit waits for one (the URL is never asked: the entry is on disk)
            let resource = KF.ImageResource(downloadURL: URL(string: "http://127.0.0.1:9/tile.png")!, cacheKey: "tile")
            let retrieval = Task { try await manager.retrieveImage(with: resource) }
            #expect(await events.wait { $0.waiting.count == 1 })
            let decode = events.events.waiting[0]
            // When the retrieval is cancelled
            retrieval.cancel()
            await #expect(throws: KingfisherError.self) { try await retrieval.value }
            // Then its decode left the queue, and does not run when the threads free
            #expect(await events.wait(for: .left(id: decode)))
            #expect(lane.waitingCount == 0)
            blocker.release()
            await lane.run {}
            #expect(lane.startedCount == startedBefore + 1)
            #expect(!events.events.contains { $0.id == decode && $0.isAdmitted })
            // The entry is still there for the next retrieval.
            let again = try await manager.retrieveImage(with: resource)
            #expect(again.cacheType == .disk && again.image.pixelWidth == 32)
        }
    }
}

/// A downloaded body whose callers all left is not decoded, and a caller leaving while the body is processed is
/// told at once.
@Suite(.timeLimit(.minutes(2)))
struct AbandonedBodyTests {
    @Test func aBodyWhoseCallersAllLeftWhileItsDecodeWaitedIsNeverDecoded() async throws {
        let threads = 6
        var configuration = ImageDownloader.Configuration()
        configuration.engine.decodeConcurrency = threads
        configuration.engine.largeDecodesOneAtATime = false
        try await withDownloader(configuration: configuration) { server, downloader in
            server.route("/tile.png", .ok(Fixtures.png(width: 24, height: 16), contentType: "image/png"))
            let lane = downloader.workers.lane
            let events = lane.watched()
            // Given every decode thread busy
            let blocker = await LaneBlocker(lane: lane, threads: threads)
            let startedBefore = lane.startedCount
            let runs = Locked(0)
            let processor = RunCounter(runs: runs)
            // and two callers of one URL whose body is in, its decode waiting for a thread
            let first = Task {
                try await downloader.downloadImage(with: server.url("/tile.png"), options: [.processor(processor)])
            }
            let second = Task {
                try await downloader.downloadImage(with: server.url("/tile.png"), options: [.processor(processor)])
            }
            #expect(await events.wait { $0.waiting.count == 1 })
            let decode = events.events.waiting[0]
            // When both leave, they are told at once, with the threads still busy
            first.cancel()
            #expect(await Self.outcome(of: first) == "cancelled")
            #expect(lane.waitingCount == 1)
            second.cancel()
            #expect(await Self.outcome(of: second) == "cancelled")
            // Then the decode left the queue, and does not run when the threads free
            #expect(await events.wait(for: .left(id: decode)))
            #expect(lane.waitingCount == 0)
            blocker.release()
            await lane.run {}
            #expect(lane.startedCount == startedBefore + 1)
            #expect(runs.withLock { $0 } == 0)
            #expect(server.hits("/tile.png") == 1)
            // A new caller gets the image (a new request: the abandoned task is gone).
            let again = try await downloader.downloadImage(
                with: server.url("/tile.png"), options: [.processor(processor)])
            #expect(again.image.pixelWidth == 24)
            #expect(runs.withLock { $0 } == 1)
        }
    }
}

extension AbandonedBodyTests {
    /// How a download ended, as text (a failed expectation never reflects the task's noncopyable body).
    static func outcome(of task: Task<ImageLoadingResult, any Error>) async -> String {
        do {
            let result = try await task.value
            return "image \(result.image.pixelWidth)"
        } catch let error as KingfisherError where error.isTaskCancelled {
            return "cancelled"
        } catch {
            return "\(error)"
        }
    }
}

/// The default processing, counting its runs.
private struct RunCounter: ImageProcessor {
    let identifier = "test.run-counter"
    let runs: Locked<Int>

    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        runs.withLock { $0 += 1 }
        return DefaultImageProcessor.default.process(item: item, options: options)
    }
}

/// The `async` retrieval runs in its caller's task: a cancel answers at once, even while a decode of its runs.
@Suite(.timeLimit(.minutes(2)))
struct CancelledWhileDecodingTests {
    @Test func aRetrievalCancelledWhileItsDecodeRunsAnswersAtOnceAndStoresNothing() async throws {
        try await withTemporaryDirectory { directory in
            let cache = try makeCache(in: directory)
            try await cache.storeToDisk(Fixtures.png(width: 32, height: 24), forKey: "photo")
            let manager = KingfisherManager(downloader: ImageDownloader(name: "cancelled-while-decoding"), cache: cache)
            var oneThread = manager.engine
            oneThread.decodeConcurrency = 1
            manager.engine = oneThread
            let blocking = BlockingProcessor()
            let resource = KF.ImageResource(
                downloadURL: URL(string: "http://127.0.0.1:9/photo.png")!, cacheKey: "photo")
            // Given a retrieval whose original, found on disk, is being processed (the processor holds its thread)
            let retrieval = Task { try await manager.retrieveImage(with: resource, options: [.processor(blocking)]) }
            await blocking.entered.wait(for: 1)
            // When it is cancelled, it is told so at once, with the processor still running
            retrieval.cancel()
            let outcome = await retrieval.result
            #expect(outcome.error?.isTaskCancelled == true, "\(outcome)")
            #expect(blocking.entered.count == 1)
            // and nothing was stored for it; the processor finishes on its thread (the next job runs after it)
            blocking.release.signal()
            await manager.pipeline.workers.lane.run {}
            #expect(cache.imageCachedType(forKey: "photo", processorIdentifier: blocking.identifier) == .none)
        }
    }
}

extension Result where Failure == any Error {
    /// The failure as a `KingfisherError`, if it is one.
    fileprivate var error: KingfisherError? {
        guard case .failure(let error) = self else { return nil }
        return error as? KingfisherError
    }
}

/// Originals processed again from the disk are read only a little ahead of their decodes: a burst of retrievals
/// faster than the decodes (a gallery scrolled fast) waits before reading, so whole files never pile up in memory,
/// and a retrieval that leaves meanwhile never reads.
@Suite(.timeLimit(.minutes(2)))
struct OriginalReadAheadTests {
    @Test func originalsAreReadAtMostTwoPerDecodeThreadAheadOfTheirDecodes() async throws {
        try await withTemporaryDirectory { directory in
            let cache = try makeCache(in: directory)
            let keys = (0..<6).map { "photo-\($0)" }
            for key in keys {
                try await cache.storeToDisk(Fixtures.png(width: 32, height: 24), forKey: key)
            }
            let manager = KingfisherManager(downloader: ImageDownloader(name: "read-ahead"), cache: cache)
            var oneThread = manager.engine
            oneThread.decodeConcurrency = 1
            manager.engine = oneThread
            let stage = manager.pipeline.workers
            // Given the only decode thread busy
            let blocker = await LaneBlocker(lane: stage.lane, threads: 1)
            // When six retrievals need their originals processed (a processor the disk has no entry for)
            let runs = Locked(0)
            let processor = RunCounter(runs: runs)
            let retrievals = keys.map { key in
                let resource = KF.ImageResource(
                    downloadURL: URL(string: "http://127.0.0.1:9/\(key).png")!, cacheKey: key)
                return Task { try await manager.retrieveImage(with: resource, options: [.processor(processor)]) }
            }
            // Then two are read and wait for the thread; four wait before reading
            #expect(
                await eventually(timeout: 40) {
                    stage.lane.waitingCount == 2 && stage.readAheadWaitingCount == 4
                })
            #expect(stage.readAheadHoldingCount == 2)
            // and one that leaves while it waits (to read, or for the thread) is never decoded
            let leaving = retrievals[5]
            leaving.cancel()
            let left = await leaving.result
            #expect(left.error?.isTaskCancelled == true, "\(left)")
            #expect(await eventually(timeout: 40) { stage.readAheadWaitingCount == 3 })
            blocker.release()
            for retrieval in retrievals.prefix(5) {
                let image = try await retrieval.value.image
                #expect(image.pixelWidth == 32)
            }
            #expect(runs.withLock { $0 } == 5)
            #expect(stage.readAheadHoldingCount == 0 && stage.readAheadWaitingCount == 0)
        }
    }
}
