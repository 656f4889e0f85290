import Foundation
import KingfisherTestSupport
import KingfisherLocking
import Testing

@testable import Kingfisher

/// When the transition runs: only when set, and for an image from the network or a provider unless
/// `forceTransition`; cache hits are checked against the server's hit count.
@Suite(.timeLimit(.minutes(1)))
struct ImageTargetTransitionTests {
    let placeholder = Fixtures.gradient(width: 8, height: 8)

    @Test func noTransitionIsRunByDefault() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png(width: 64, height: 48)))
            let target = RecordingTarget()
            _ = await target.kf.load(.network(f.server.url("/a.png")), placeholder: placeholder, manager: f.manager)
            #expect(target.log.all == [.image("8x8"), .image("64x48")])
        }
    }

    @Test(arguments: [
        (ImageTransition.fade(0.25), "fade(0.25)"), (.flipFromLeft(0.5), "flipFromLeft(0.5)"),
        (.flipFromRight(0.5), "flipFromRight(0.5)"), (.flipFromTop(0.5), "flipFromTop(0.5)"),
        (.flipFromBottom(0.5), "flipFromBottom(0.5)"),
    ])
    func aDownloadedImageArrivesThroughTheTransition(transition: ImageTransition, kind: String) async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png(width: 64, height: 48)))
            let target = RecordingTarget()
            let result = await target.kf.load(
                .network(f.server.url("/a.png")), placeholder: placeholder, options: [.transition(transition)],
                manager: f.manager)
            #expect((try? result.get())?.cacheType == CacheType.none)
            // The placeholder goes, then the transition runs from it to the new image
            #expect(
                target.log.all == [
                    .image("8x8"), .image(nil), .transition(kind, from: "8x8", to: "64x48"), .image("64x48"),
                ])
            #expect(f.server.hits("/a.png") == 1)
        }
    }

    @Test func cacheHitsArriveWithoutTheTransition() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png(width: 64, height: 48)))
            let source = Source.network(f.server.url("/a.png"))
            let options: KingfisherOptionsInfo = [.transition(.fade(0.25)), .waitForCache]
            // Given the image downloaded once (with the transition) and cached on disk
            let first = RecordingTarget()
            _ = await first.kf.load(source, options: options, manager: f.manager)
            #expect(first.log.all.contains(.transition("fade(0.25)", from: nil, to: "64x48")))

            // When another target loads it from the memory cache
            let fromMemory = RecordingTarget()
            let memoryResult = await fromMemory.kf.load(source, options: options, manager: f.manager)
            // Then it is set directly
            #expect((try? memoryResult.get())?.cacheType == .memory)
            #expect(fromMemory.log.all == [.image(nil), .image("64x48")])

            // And from the disk cache the same
            f.cache.clearMemoryCache()
            let fromDisk = RecordingTarget()
            let diskResult = await fromDisk.kf.load(source, options: options, manager: f.manager)
            #expect((try? diskResult.get())?.cacheType == .disk)
            #expect(fromDisk.log.all == [.image(nil), .image("64x48")])
            #expect(f.server.hits("/a.png") == 1)
        }
    }

    @Test func forceTransitionRunsItForCacheHits() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png(width: 64, height: 48)))
            let source = Source.network(f.server.url("/a.png"))
            _ = await f.manager.callbackResult(source, options: [.waitForCache])
            let fromMemory = RecordingTarget()
            let memoryResult = await fromMemory.kf.load(
                source, placeholder: placeholder, options: [.transition(.fade(0.25)), .forceTransition],
                manager: f.manager)
            #expect((try? memoryResult.get())?.cacheType == .memory)
            #expect(fromMemory.log.all.contains(.transition("fade(0.25)", from: "8x8", to: "64x48")))

            f.cache.clearMemoryCache()
            let fromDisk = RecordingTarget()
            let diskResult = await fromDisk.kf.load(
                source, options: [.transition(.flipFromTop(0.1)), .forceTransition], manager: f.manager)
            #expect((try? diskResult.get())?.cacheType == .disk)
            #expect(fromDisk.log.all.contains(.transition("flipFromTop(0.1)", from: nil, to: "64x48")))
            #expect(f.server.hits("/a.png") == 1)
        }
    }

    @Test func forceTransitionWithoutATransitionRunsNone() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png(width: 64, height: 48)))
            let target = RecordingTarget()
            _ = await target.kf.load(.network(f.server.url("/a.png")), options: [.forceTransition], manager: f.manager)
            #expect(target.log.all == [.image(nil), .image("64x48")])
        }
    }

    @Test func keptImageIsWhatTheTransitionStartsFrom() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png(width: 64, height: 48)))
            let target = RecordingTarget(image: Fixtures.gradient(width: 20, height: 20))
            _ = await target.kf.load(
                .network(f.server.url("/a.png")), placeholder: placeholder,
                options: [.keepCurrentImageWhileLoading, .transition(.fade(0.2))], manager: f.manager)
            #expect(target.log.all == [.transition("fade(0.2)", from: "20x20", to: "64x48"), .image("64x48")])
        }
    }

    @Test func customTransitionRunsItsAnimationsThenItsCompletionThenTheCompletionHandler() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png(width: 64, height: 48)))
            let order = Locked<[String]>([])
            let transition = ImageTransition.custom(
                duration: 0.3,
                animations: { target, image in
                    order.withLock { $0.append("animations \(name(image)!)") }
                    target.image = image
                },
                completion: { finished in order.withLock { $0.append("completion \(finished)") } })
            let target = RecordingTarget()
            _ = await withSanitizedCheckedContinuation { continuation in
                target.kf.setImage(
                    with: .network(f.server.url("/a.png")), options: [.transition(transition)], manager: f.manager,
                    completionHandler: { result in
                        order.withLock { $0.append("handler") }
                        continuation.resume(returning: result)
                    })
            }
            #expect(order.withLock { $0 } == ["animations 64x48", "completion true", "handler"])
            #expect(
                target.log.all == [.image(nil), .transition("custom(0.3)", from: nil, to: "64x48"), .image("64x48")])
            #expect(transition.duration == 0.3)
        }
    }

    @Test func theDefaultTargetTransitionSetsTheImageAtOnce() async throws {
        // A target that does not animate: the protocol's default transition
        final class PlainTarget: KingfisherImageTarget {
            let kingfisherState = KingfisherTargetState()
            private let shown = Locked<KFCrossPlatformImage?>(nil)
            var image: KFCrossPlatformImage? {
                get { shown.withLock { $0 } }
                set { shown.withLock { $0 = newValue } }
            }
        }
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png(width: 64, height: 48)))
            let target = PlainTarget()
            let result = await target.kf.load(
                .network(f.server.url("/a.png")), options: [.transition(.fade(10))], manager: f.manager)
            #expect(result.failure == nil)
            #expect(name(target.image) == "64x48")
        }
    }

    @Test func transitionOptionIsParsedAndDurationsAreKept() {
        let options = KingfisherParsedOptionsInfo([.transition(.flipFromBottom(0.4)), .forceTransition])
        #expect(options.transition.duration == 0.4)
        #expect(options.forceTransition)
        #expect(KingfisherParsedOptionsInfo(nil).transition.isNone)
        #expect(ImageTransition.none.duration == 0)
    }
}
