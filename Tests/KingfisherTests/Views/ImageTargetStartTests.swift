import Foundation
import KingfisherTestSupport
import Testing

@testable import Kingfisher

/// What a target shows when a load starts (and when there is nothing to load).
@Suite(.timeLimit(.minutes(1)))
struct ImageTargetStartTests {
    let placeholder = Fixtures.gradient(width: 8, height: 8)
    let shownBefore = Fixtures.gradient(width: 20, height: 20)

    @Test func nilSourceShowsThePlaceholderAndFailsWithEmptySource() async throws {
        try await withManager { f in
            // Given a target showing an image
            let target = RecordingTarget(image: shownBefore)
            // When it is asked to load nothing
            let result = await target.kf.load(nil, placeholder: placeholder, manager: f.manager)
            // Then the placeholder replaces the image and the completion reports emptySource (5001)
            #expect(target.log.all == [.image("8x8")])
            #expect(result.failure?.errorCode == 5001)
            #expect(target.kf.taskIdentifier == nil)
            #expect(f.server.totalHits == 0)
        }
    }

    @Test func placeholderIsShownBeforeSetImageReturnsAndStaysUntilTheImageArrives() async throws {
        try await withManager { f in
            f.server.route("/held.png", .init(body: Fixtures.png(width: 64, height: 48), held: true))
            let target = RecordingTarget()
            let collector = RetrievalCollector()
            // When a load starts on an idle target
            let task = target.kf.setImage(
                with: .network(f.server.url("/held.png")), placeholder: placeholder, manager: f.manager,
                completionHandler: collector.handler)
            // Then the placeholder is shown already, while the server still holds the response
            #expect(task != nil)
            #expect(target.log.all == [.image("8x8")])
            await f.server.waitForRequests("/held.png")
            #expect(target.log.all == [.image("8x8")])
            // And once the image arrives it replaces the placeholder, with no blank in between
            f.server.release("/held.png")
            await collector.wait(for: 1)
            #expect(target.log.all == [.image("8x8"), .image("64x48")])
            #expect(target.kf.placeholder == nil)
        }
    }

    @Test func withoutAPlaceholderTheShownImageIsClearedAtTheStart() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png(width: 64, height: 48)))
            // Given a target showing an image, When a load starts with no placeholder (Kingfisher's rule)
            let target = RecordingTarget(image: shownBefore)
            _ = await target.kf.load(.network(f.server.url("/a.png")), manager: f.manager)
            // Then the old image goes at once, and the new one comes
            #expect(target.log.all == [.image(nil), .image("64x48")])
        }
    }

    @Test func keepCurrentImageWhileLoadingKeepsTheShownImageInsteadOfThePlaceholder() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png(width: 64, height: 48)))
            let target = RecordingTarget(image: shownBefore)
            let result = await target.kf.load(
                .network(f.server.url("/a.png")), placeholder: placeholder, options: [.keepCurrentImageWhileLoading],
                manager: f.manager)
            // Then the placeholder never showed: the old image stayed until the new one replaced it
            #expect(result.failure == nil)
            #expect(target.log.all == [.image("64x48")])
        }
    }

    @Test func keepCurrentImageWhileLoadingStillShowsThePlaceholderOnAnEmptyTarget() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png(width: 64, height: 48)))
            let target = RecordingTarget()
            _ = await target.kf.load(
                .network(f.server.url("/a.png")), placeholder: placeholder, options: [.keepCurrentImageWhileLoading],
                manager: f.manager)
            #expect(target.log.all == [.image("8x8"), .image("64x48")])
        }
    }

    @Test func keepCurrentImageWhileLoadingKeepsAPlaceholderStillShown() async throws {
        try await withManager { f in
            f.server.route("/missing.png", .status(404))
            f.server.route("/a.png", .ok(Fixtures.png(width: 64, height: 48)))
            let log = EventLog()
            let target = RecordingTarget(log: log)
            let first = RecordingPlaceholder(label: "first", log: log)
            let second = RecordingPlaceholder(label: "second", log: log)
            // Given a failed load that left its placeholder shown
            _ = await target.kf.load(.network(f.server.url("/missing.png")), placeholder: first, manager: f.manager)
            // When the next load keeps what is shown
            _ = await target.kf.load(
                .network(f.server.url("/a.png")), placeholder: second, options: [.keepCurrentImageWhileLoading],
                manager: f.manager)
            // Then the first placeholder stayed until the image came, and the second was never added
            #expect(
                log.all == [
                    .placeholderAdded("first"), .image("64x48"), .placeholderRemoved("first"),
                ])
        }
    }

    @Test func indicatorStartsWithTheLoadReportsProgressAndStopsBeforeTheImageIsSet() async throws {
        try await withManager { f in
            let png = Fixtures.png(width: 64, height: 48)
            f.server.route(
                "/a.png",
                .init(
                    body: png, chunkSize: png.count / 4 + 1, delayBetweenChunks: .milliseconds(5),
                    contentLength: Int64(png.count)))
            let log = EventLog()
            let target = RecordingTarget(log: log)
            let indicator = RecordingIndicator(log: log)
            target.kf.indicatorType = .custom(indicator: indicator)
            #expect(log.all == [.indicatorAdded("indicator")])
            log.clear()

            _ = await target.kf.load(.network(f.server.url("/a.png")), manager: f.manager)

            let events = log.all
            #expect(events.first == .image(nil))
            #expect(events[1] == .indicatorStarted("indicator"))
            #expect(Array(events.suffix(2)) == [.indicatorStopped("indicator"), .image("64x48")])
            let progress = events.compactMap { event -> (Int64, Int64)? in
                if case .indicatorProgress(_, let received, let total) = event { return (received, total) }
                return nil
            }
            // How many reports arrive depends on how the chunks are read (one read can carry several under load),
            // so only their presence, order and end are asserted.
            #expect(!progress.isEmpty)
            #expect(progress.last.map { $0 == (Int64(png.count), Int64(png.count)) } == true)
            #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.0 < $1.0 })
        }
    }
}
