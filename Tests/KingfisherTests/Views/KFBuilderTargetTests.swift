import Foundation
import KingfisherTestSupport
import KingfisherLocking
import Testing

@testable import Kingfisher

/// `KF.Builder.set(to:)` and the target-side setters.
@Suite(.timeLimit(.minutes(1)))
struct KFBuilderTargetTests {
    @Test func setToLoadsWithPlaceholderFadeAndCallsOnSuccess() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png(width: 64, height: 48)))
            let target = RecordingTarget()
            let success = RetrievalCollector()
            let builder = KF.url(f.server.url("/a.png"))
                .manager(f.manager)
                .placeholder(Fixtures.gradient(width: 8, height: 8))
                .fade(duration: 0.25)
                .onSuccess { success.handler(.success($0)) }
            #expect(builder.options.transition.duration == 0.25)

            let task = builder.set(to: target)

            #expect(task != nil)
            #expect(target.log.all == [.image("8x8")])
            await success.wait(for: 1)
            #expect(
                target.log.all == [
                    .image("8x8"), .image(nil), .transition("fade(0.25)", from: "8x8", to: "64x48"), .image("64x48"),
                ])
        }
    }

    @Test func setToFailsWithOnFailureImageAndCallsOnFailure() async throws {
        try await withManager { f in
            f.server.route("/missing.png", .status(404))
            let target = RecordingTarget(image: Fixtures.gradient(width: 20, height: 20))
            let failures = Locked<[KingfisherError]>([])
            let done = ResultlessCounter()
            KF.url(f.server.url("/missing.png"))
                .manager(f.manager)
                .placeholder(Fixtures.gradient(width: 8, height: 8))
                .keepCurrentImageWhileLoading()
                .onFailureImage(Fixtures.gradient(width: 4, height: 4))
                .onFailure { error in
                    failures.withLock { $0.append(error) }
                    done.increment()
                }
                .set(to: target)
            await done.wait(for: 1)
            #expect(failures.withLock { $0.first?.isInvalidResponseStatusCode(404) } == true)
            // The kept image stayed while loading, and the failure image replaced it
            #expect(target.log.all == [.image("4x4")])
        }
    }

    @Test func setToWithForceTransitionRunsItForACacheHit() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png(width: 64, height: 48)))
            let url = f.server.url("/a.png")
            _ = await f.manager.callbackResult(.network(url))
            let target = RecordingTarget()
            let done = ResultlessCounter()
            KF.url(url).manager(f.manager).transition(.flipFromLeft(0.1)).forceTransition()
                .onSuccess { _ in done.increment() }
                .set(to: target)
            await done.wait(for: 1)
            #expect(target.log.all.contains(.transition("flipFromLeft(0.1)", from: nil, to: "64x48")))
            #expect(f.server.hits("/a.png") == 1)
        }
    }

    @Test func setToWithANilURLShowsThePlaceholderAndFails() async throws {
        try await withManager { f in
            let target = RecordingTarget()
            let failures = Locked<[KingfisherError]>([])
            let task = KF.url(nil).manager(f.manager)
                .placeholder(RecordingPlaceholder(label: "p", log: target.log))
                .onFailure { error in failures.withLock { $0.append(error) } }
                .set(to: target)
            #expect(task == nil)
            #expect(failures.withLock { $0.map(\.errorCode) } == [5001])
            #expect(target.log.all == [.placeholderAdded("p")])
        }
    }
}
