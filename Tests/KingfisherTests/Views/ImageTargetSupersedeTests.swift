import Dispatch
import Foundation
import KingfisherTestSupport
import KingfisherLocking
import Testing

@testable import Kingfisher

/// A newer request on the same target supersedes the older one; cancelling; targets that go away mid-load.
@Suite(.timeLimit(.minutes(1)))
struct ImageTargetSupersedeTests {
    @Test func aNewRequestCancelsTheOlderOneWhoseCompletionGetsNotCurrentSourceTask() async throws {
        try await withManager { f in
            f.server.route("/old.png", .init(body: Fixtures.png(width: 30, height: 20), held: true))
            f.server.route("/new.png", .ok(Fixtures.png(width: 40, height: 30)))
            let target = RecordingTarget()
            let old = RetrievalCollector()
            let new = RetrievalCollector()
            let oldTask = target.kf.setImage(
                with: .network(f.server.url("/old.png")), manager: f.manager, completionHandler: old.handler)
            let oldIdentifier = target.kf.taskIdentifier
            await f.server.waitForRequests("/old.png")

            target.kf.setImage(
                with: .network(f.server.url("/new.png")), manager: f.manager, completionHandler: new.handler)
            #expect(target.kf.taskIdentifier != oldIdentifier)
            await old.wait(for: 1)
            await new.wait(for: 1)
            f.server.release("/old.png")

            #expect(oldTask?.isCancelled == true)
            let superseded = try #require(old.results[0].failure?.notCurrentSourceTask)
            #expect(superseded.result == nil)
            #expect((superseded.error as? KingfisherError)?.isTaskCancelled == true)
            #expect(old.results[0].failure?.errorCode == 5002)
            #expect(new.results[0].failure == nil)
            #expect(name(target.image) == "40x30")
            #expect(!target.log.all.contains(.image("30x20")))
        }
    }

    @Test func aSupersededResultThatArrivesAnywayIsDroppedAndHandedBack() async throws {
        try await withManager { f in
            f.server.route("/new.png", .ok(Fixtures.png(width: 40, height: 30)))
            // Given an image in the memory cache whose result is delivered on a queue held suspended
            let oldURL = f.server.url("/old.png")
            try await f.cache.store(Fixtures.gradient(width: 30, height: 20), forKey: oldURL.cacheKey, toDisk: false)
            let held = DispatchQueue(label: "held-callbacks")
            held.suspend()
            let target = RecordingTarget()
            let old = RetrievalCollector()
            let new = RetrievalCollector()
            let oldTask = target.kf.setImage(
                with: .network(oldURL), options: [.callbackQueue(.dispatch(held))], manager: f.manager,
                completionHandler: old.handler)
            #expect(oldTask == nil)  // a memory hit: nothing to cancel

            // When a newer request finishes first, and then the old result is let through
            target.kf.setImage(
                with: .network(f.server.url("/new.png")), manager: f.manager, completionHandler: new.handler)
            await new.wait(for: 1)
            held.resume()
            await old.wait(for: 1)

            // Then the old image is handed back in the error, never set
            let superseded = try #require(old.results[0].failure?.notCurrentSourceTask)
            #expect(superseded.error == nil)
            #expect(name(superseded.result?.image) == "30x20")
            #expect(target.log.all == [.image(nil), .image(nil), .image("40x30")])
        }
    }

    @Test func aSupersededRequestDoesNotStopTheIndicatorOfTheNewerOne() async throws {
        try await withManager { f in
            f.server.route("/old.png", .init(body: Fixtures.png(width: 30, height: 20), held: true))
            f.server.route("/new.png", .init(body: Fixtures.png(width: 40, height: 30), held: true))
            let log = EventLog()
            let target = RecordingTarget.withIndicator(log: log)
            let old = RetrievalCollector()
            let new = RetrievalCollector()
            target.kf.setImage(
                with: .network(f.server.url("/old.png")), manager: f.manager, completionHandler: old.handler)
            target.kf.setImage(
                with: .network(f.server.url("/new.png")), manager: f.manager, completionHandler: new.handler)
            await old.wait(for: 1)
            #expect(!log.all.contains(.indicatorStopped("indicator")))
            f.server.release("/new.png")
            f.server.release("/old.png")
            await new.wait(for: 1)
            #expect(log.all.filter { $0 == .indicatorStopped("indicator") }.count == 1)
            #expect(log.all.last == .image("40x30"))
        }
    }

    @Test func aNilSourceSupersedesARunningLoadAndStopsItsIndicator() async throws {
        try await withManager { f in
            f.server.route("/held.png", .init(body: Fixtures.png(), held: true))
            let log = EventLog()
            let target = RecordingTarget.withIndicator(log: log)
            let running = RetrievalCollector()
            target.kf.setImage(
                with: .network(f.server.url("/held.png")), manager: f.manager, completionHandler: running.handler)

            let empty = await target.kf.load(
                nil, placeholder: Fixtures.gradient(width: 8, height: 8), manager: f.manager)
            await running.wait(for: 1)
            f.server.release("/held.png")

            #expect(empty.failure?.errorCode == 5001)
            #expect(running.results[0].failure?.errorCode == 5002)
            #expect(
                log.all == [
                    .image(nil), .indicatorStarted("indicator"), .image("8x8"), .indicatorStopped("indicator"),
                ])
        }
    }

    @Test func cancelDownloadTaskEndsTheLoadWithACancellation() async throws {
        try await withManager { f in
            f.server.route("/held.png", .init(body: Fixtures.png(), held: true))
            let log = EventLog()
            let target = RecordingTarget.withIndicator(log: log)
            let collector = RetrievalCollector()
            target.kf.setImage(
                with: .network(f.server.url("/held.png")), placeholder: RecordingPlaceholder(label: "p", log: log),
                options: [.onFailureImage(Fixtures.gradient(width: 4, height: 4))], manager: f.manager,
                completionHandler: collector.handler)
            await f.server.waitForRequests("/held.png")

            target.kf.cancelDownloadTask()
            await collector.wait(for: 1)
            f.server.release("/held.png")

            #expect(collector.results[0].failure?.isTaskCancelled == true)
            #expect(
                log.all == [
                    .placeholderAdded("p"), .indicatorStarted("indicator"), .indicatorStopped("indicator"),
                    .image("4x4"), .placeholderRemoved("p"),
                ])
            #expect(target.kf.taskIdentifier == nil)
        }
    }

    @Test func aTargetGoneMidDownloadCancelsItAndTheCompletionStillComesOnce() async throws {
        try await withManager { f in
            f.server.route("/held.png", .init(body: Fixtures.png(), held: true))
            let log = EventLog()
            let collector = RetrievalCollector()
            weak var gone: RecordingTarget?
            do {
                let target = RecordingTarget(log: log)
                gone = target
                target.kf.setImage(
                    with: .network(f.server.url("/held.png")), placeholder: Fixtures.gradient(width: 8, height: 8),
                    manager: f.manager, completionHandler: collector.handler)
                await f.server.waitForRequests("/held.png")
            }
            // Then the load did not keep the target alive, and its end was reported once
            #expect(gone == nil)
            await collector.wait(for: 1)
            f.server.release("/held.png")
            let superseded = try #require(collector.results.first?.failure?.notCurrentSourceTask)
            #expect((superseded.error as? KingfisherError)?.isTaskCancelled == true)
            #expect(log.all == [.image("8x8")])
            // A later retrieval of the same URL still works (the cancelled download left nothing behind)
            let again = await f.manager.callbackResult(.network(f.server.url("/held.png")))
            #expect(again.failure == nil)
            #expect(collector.results.count == 1)
        }
    }

    @Test func aTargetGoneBeforeItsResultIsDeliveredGetsNothingSet() async throws {
        try await withManager { f in
            let url = f.server.url("/a.png")
            try await f.cache.store(Fixtures.gradient(width: 30, height: 20), forKey: url.cacheKey, toDisk: false)
            let held = DispatchQueue(label: "held-callbacks")
            held.suspend()
            let log = EventLog()
            let collector = RetrievalCollector()
            weak var gone: RecordingTarget?
            do {
                let target = RecordingTarget(log: log)
                gone = target
                target.kf.setImage(
                    with: .network(url), options: [.callbackQueue(.dispatch(held))], manager: f.manager,
                    completionHandler: collector.handler)
            }
            #expect(gone == nil)
            held.resume()
            await collector.wait(for: 1)
            let superseded = try #require(collector.results.first?.failure?.notCurrentSourceTask)
            #expect(name(superseded.result?.image) == "30x20")
            #expect(log.all == [.image(nil)])
        }
    }
}
