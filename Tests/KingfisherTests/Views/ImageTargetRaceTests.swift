import Dispatch
import Foundation
import KingfisherTestSupport
import KingfisherLocking
import Testing

@testable import Kingfisher

/// Completion results by request label, counted, so a test can wait for them and see none came twice.
final class LabelledCompletions: Sendable {
    private let results = Locked<[String: [Result<RetrieveImageResult, KingfisherError>]]>([:])
    private let counter = ResultlessCounter()

    func handler(_ label: String) -> @Sendable (Result<RetrieveImageResult, KingfisherError>) -> Void {
        { result in
            self.results.withLock { $0[label, default: []].append(result) }
            self.counter.increment()
        }
    }

    func results(_ label: String) -> [Result<RetrieveImageResult, KingfisherError>] {
        results.withLock { $0[label] ?? [] }
    }

    var total: Int { counter.count }

    func wait(for count: Int) async { await counter.wait(for: count) }
}

/// Two requests in quick succession on one target, a thousand times: the older one's image is never set once the
/// newer one was asked for, and every completion comes exactly once.
@Suite(.timeLimit(.minutes(3)))
struct ImageTargetRaceTests {
    @Test func anOlderResultNeverLandsAfterANewerRequest() async throws {
        try await withManager { f in
            f.server.route("/old.png", .ok(Fixtures.png(width: 30, height: 20)))
            f.server.route("/new.png", .ok(Fixtures.png(width: 40, height: 30)))
            let old = Source.network(f.server.url("/old.png"))
            let new = Source.network(f.server.url("/new.png"))
            // Both in the memory cache, so results race in from another queue within microseconds
            _ = await f.manager.callbackResult(old)
            _ = await f.manager.callbackResult(new)
            let racing = DispatchQueue(label: "racing-callbacks", attributes: .concurrent)
            let completions = LabelledCompletions()
            var oldOutcomes = (set: 0, dropped: 0)

            for round in 0..<1000 {
                let target = RecordingTarget()
                // Even rounds: the old image from the memory cache, delivered on another queue. Odd rounds: a
                // fresh download (forceRefresh) that the newer request cancels, or not, depending on timing.
                let oldOptions: KingfisherOptionsInfo =
                    round.isMultiple(of: 2)
                    ? [.callbackQueue(.dispatch(racing))] : [.forceRefresh, .callbackQueue(.dispatch(racing))]
                target.kf.setImage(
                    with: old, options: oldOptions, manager: f.manager,
                    completionHandler: completions.handler("old\(round)"))
                target.kf.setImage(
                    with: new, options: [.callbackQueue(.dispatch(racing))], manager: f.manager,
                    completionHandler: completions.handler("new\(round)"))
                await completions.wait(for: 2 * (round + 1))

                let oldResults = completions.results("old\(round)")
                let newResults = completions.results("new\(round)")
                try #require(oldResults.count == 1 && newResults.count == 1, "round \(round)")
                #expect(newResults[0].failure == nil, "round \(round)")
                #expect(name(target.image) == "40x30", "round \(round)")
                let events = target.log.all
                let oldSetAt = events.firstIndex(of: .image("30x20"))
                // The newer request's start is its clearing of the image (it has no placeholder): the last `nil`
                let newStart = events.lastIndex(of: .image(nil))
                switch oldResults[0] {
                case .success:
                    // It finished before the newer request was made: set then, and never after
                    oldOutcomes.set += 1
                    #expect(oldSetAt != nil && newStart != nil && oldSetAt! < newStart!, "round \(round): \(events)")
                case .failure(let error):
                    oldOutcomes.dropped += 1
                    #expect(error.errorCode == 5002, "round \(round): \(error)")
                    #expect(oldSetAt == nil, "round \(round): \(events)")
                }
            }
            // No completion came twice, late
            #expect(completions.total == 2000)
            #expect(oldOutcomes.set + oldOutcomes.dropped == 1000)
            // The drop path was exercised (the downloads alone are cancelled almost every time)
            #expect(oldOutcomes.dropped > 0)
        }
    }
}
