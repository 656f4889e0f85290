import Foundation
import KingfisherLocking
import Testing

@testable import Kingfisher

/// A handle answers a cancel with the error of the step its work is in, decided when it is cancelled.
struct DownloadTaskStepTests {
    @Test func aCancelAnswersWithTheErrorOfTheCurrentStep() throws {
        let provider = RawImageDataProvider(data: Data([1, 2, 3]), cacheKey: "k")
        let answered = Locked<[KingfisherError]>([])
        let fresh = DownloadTask()
        fresh.onCancel { error in answered.withLock { $0.append(error) } }
        fresh.enter(.providing(provider))
        fresh.enter(.preparing)  // the provider gave way to a retry or an alternative
        fresh.cancel()
        let providing = DownloadTask()
        providing.onCancel { error in answered.withLock { $0.append(error) } }
        providing.enter(.providing(provider))
        providing.cancel()
        // A handle cancelled before anyone ran work for it answers the one added later, with its step then.
        let early = DownloadTask()
        early.enter(.providing(provider))
        early.cancel()
        early.onCancel { error in answered.withLock { $0.append(error) } }
        let errors = answered.withLock { $0 }
        try #require(errors.count == 3)
        guard case .requestError(reason: .asyncTaskContextCancelled) = errors[0] else {
            Issue.record("a handle preparing answered \(errors[0])")
            return
        }
        for error in errors[1...] {
            guard case .requestError(reason: .dataProviderCancelled(let answeredFor)) = error else {
                Issue.record("a handle providing answered \(error)")
                continue
            }
            #expect(answeredFor.cacheKey == "k")
        }
        // A finished handle ignores a cancel.
        let finished = DownloadTask()
        finished.onCancel { error in answered.withLock { $0.append(error) } }
        #expect(finished.markFinished())
        finished.cancel()
        #expect(answered.withLock { $0 }.count == 3 && !finished.isCancelled)
    }
}
