import Foundation
import KingfisherTestSupport
import KingfisherLocking
import Testing

@testable import Kingfisher

/// What a target shows when its load ends: the placeholder, `onFailureImage`, the indicator.
@Suite(.timeLimit(.minutes(1)))
struct ImageTargetResultTests {
    @Test func successSetsTheImageThenRemovesThePlaceholderAndStopsTheIndicator() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png(width: 64, height: 48)))
            let log = EventLog()
            let target = RecordingTarget.withIndicator(log: log)
            let placeholder = RecordingPlaceholder(label: "p", log: log)

            let result = await target.kf.load(
                .network(f.server.url("/a.png")), placeholder: placeholder, manager: f.manager)

            #expect((try? result.get())?.cacheType == CacheType.none)
            #expect(
                log.all.filter(\.isProgress.negated) == [
                    .placeholderAdded("p"), .indicatorStarted("indicator"), .indicatorStopped("indicator"),
                    .image("64x48"), .placeholderRemoved("p"),
                ])
            #expect(target.kf.placeholder == nil)
            #expect(target.kf.taskIdentifier == nil)
        }
    }

    @Test func failureKeepsThePlaceholderAndStopsTheIndicator() async throws {
        try await withManager { f in
            f.server.route("/missing.png", .status(404))
            let log = EventLog()
            let target = RecordingTarget.withIndicator(log: log)

            let result = await target.kf.load(
                .network(f.server.url("/missing.png")), placeholder: RecordingPlaceholder(label: "p", log: log),
                manager: f.manager)

            #expect(result.failure?.isInvalidResponseStatusCode(404) == true)
            #expect(
                log.all.filter(\.isProgress.negated) == [
                    .placeholderAdded("p"), .indicatorStarted("indicator"), .indicatorStopped("indicator"),
                ])
            #expect(target.kf.placeholder != nil)
        }
    }

    @Test func onFailureImageReplacesThePlaceholderOnFailure() async throws {
        try await withManager { f in
            f.server.route("/missing.png", .status(404))
            let log = EventLog()
            let target = RecordingTarget(log: log)

            let result = await target.kf.load(
                .network(f.server.url("/missing.png")), placeholder: RecordingPlaceholder(label: "p", log: log),
                options: [.onFailureImage(Fixtures.gradient(width: 4, height: 4))], manager: f.manager)

            #expect(result.failure != nil)
            #expect(log.all == [.placeholderAdded("p"), .image("4x4"), .placeholderRemoved("p")])
            #expect(name(target.image) == "4x4")
        }
    }

    @Test func onFailureImageNilClearsTheImageOnFailure() async throws {
        try await withManager { f in
            f.server.route("/missing.png", .status(404))
            let placeholder = Fixtures.gradient(width: 8, height: 8)
            let target = RecordingTarget()

            _ = await target.kf.load(
                .network(f.server.url("/missing.png")), placeholder: placeholder, options: [.onFailureImage(nil)],
                manager: f.manager)

            #expect(target.log.all == [.image("8x8"), .image(nil)])
            #expect(target.image == nil)
        }
    }

    @Test func onFailureImageIsNotUsedOnSuccess() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png(width: 64, height: 48)))
            let target = RecordingTarget()
            _ = await target.kf.load(
                .network(f.server.url("/a.png")), options: [.onFailureImage(Fixtures.gradient(width: 4, height: 4))],
                manager: f.manager)
            #expect(target.log.all == [.image(nil), .image("64x48")])
        }
    }

    @Test func providerImagesLoadIntoTheTargetToo() async throws {
        try await withManager { f in
            let target = RecordingTarget()
            let provider = RawImageDataProvider(data: Fixtures.png(width: 24, height: 16), cacheKey: "raw")
            let result = await target.kf.load(.provider(provider), manager: f.manager)
            #expect((try? result.get())?.cacheType == CacheType.none)
            #expect(name(target.image) == "24x16")
        }
    }

    @Test func activityIndicatorModelFollowsTheLoad() async throws {
        try await withManager { f in
            let png = Fixtures.png(width: 64, height: 48)
            f.server.route(
                "/a.png",
                .init(
                    body: png, chunkSize: png.count / 4 + 1, delayBetweenChunks: .milliseconds(5),
                    contentLength: Int64(png.count), held: true))
            let target = RecordingTarget()
            target.kf.indicatorType = .activity
            let indicator = try #require(target.kf.indicator as? ActivityIndicator)
            let seen = Locked<[IndicatorState]>([])
            indicator.onChange = { state in seen.withLock { $0.append(state) } }
            #expect(target.log.all == [.indicatorAdded("activity")])
            #expect(indicator.state.isAnimating == false)

            let collector = RetrievalCollector()
            target.kf.setImage(
                with: .network(f.server.url("/a.png")), manager: f.manager, completionHandler: collector.handler)
            #expect(indicator.state.isAnimating)
            #expect(indicator.state.fractionCompleted == nil)
            f.server.release("/a.png")
            await collector.wait(for: 1)

            #expect(indicator.state.isAnimating == false)
            #expect(indicator.state.fractionCompleted == 1)
            let fractions = seen.withLock { $0 }.compactMap(\.fractionCompleted)
            #expect(fractions.count >= 2)
            #expect(fractions == fractions.sorted())
        }
    }

    @Test func indicatorTypeChangesAreHandedToTheTarget() throws {
        let target = RecordingTarget()
        let gif = Fixtures.animation(colors: [[255, 0, 0, 255], [0, 0, 255, 255]], durations: [0.1, 0.2])
        let gifData = try #require(gif.kf.gifRepresentation())

        target.kf.indicatorType = .activity
        target.kf.indicatorType = .image(imageData: gifData)
        let imageIndicator = try #require(target.kf.indicator as? ImageIndicator)
        #expect(imageIndicator.image.kf.imageFrameCount == 2)
        target.kf.indicatorType = .image(imageData: Data("not an image".utf8))
        #expect(target.kf.indicator == nil)
        target.kf.indicatorType = .none

        #expect(
            target.log.all == [
                .indicatorAdded("activity"), .indicatorRemoved("activity"), .indicatorAdded("image"),
                .indicatorRemoved("image"),
            ])
    }

    @Test func anIndicatorSetDuringALoadStartsAtOnce() async throws {
        try await withManager { f in
            f.server.route("/held.png", .init(body: Fixtures.png(), held: true))
            let target = RecordingTarget()
            let collector = RetrievalCollector()
            target.kf.setImage(
                with: .network(f.server.url("/held.png")), manager: f.manager, completionHandler: collector.handler)
            target.kf.indicatorType = .activity
            let indicator = try #require(target.kf.indicator as? ActivityIndicator)
            #expect(indicator.state.isAnimating)
            f.server.release("/held.png")
            await collector.wait(for: 1)
            #expect(indicator.state.isAnimating == false)
        }
    }

    @Test func aCompletionHandlerMayStartTheNextLoadOnTheSameTarget() async throws {
        try await withManager { f in
            f.server.route("/missing.png", .status(404))
            f.server.route("/fallback.png", .ok(Fixtures.png(width: 24, height: 16)))
            let fallback = Source.network(f.server.url("/fallback.png"))
            let manager = f.manager
            let target = RecordingTarget()
            let second = RetrievalCollector()
            // When the first load's completion handler (run while Kingfisher serves the target) loads again
            target.kf.setImage(
                with: .network(f.server.url("/missing.png")), manager: manager,
                completionHandler: { _ in
                    target.kf.setImage(with: fallback, manager: manager, completionHandler: second.handler)
                })
            await second.wait(for: 1)
            // Then nothing deadlocks and the second image is shown
            #expect(second.results[0].failure == nil)
            #expect(target.log.all == [.image(nil), .image(nil), .image("24x16")])
        }
    }
}
