import Foundation
import Kingfisher
import KingfisherTestSupport
import KingfisherLocking
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A user's own builder type: storage for the options and the three delegates is all it writes.
private final class ThumbnailRequest: KFOptionSetter, Sendable {
    private let stored = Locked(KingfisherParsedOptionsInfo(nil))
    var options: KingfisherParsedOptionsInfo {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }
    let onFailureDelegate = Delegate<KingfisherError, Void>()
    let onSuccessDelegate = Delegate<RetrieveImageResult, Void>()
    let onProgressDelegate = Delegate<(Int64, Int64), Void>()
}

@Suite(.timeLimit(.minutes(1)))
struct KFOptionSetterTests {
    @Test func aTypeOfYourOwnGetsEverySetter() {
        let cache = ImageCache(name: "setter-\(UUID().uuidString)")
        let request = ThumbnailRequest()
            .downsampling(size: CGSize(width: 64, height: 64))
            .blur(radius: 2)
            .forceRefresh()
            .cacheOriginalImage()
            .targetCache(cache)
            .retry(maxCount: 2, interval: .seconds(1))
            .lowDataModeSource(.network(URL(string: "https://example.com/small.png")!))
            .onFailureImage(nil)
            .forceTransition()
            .serialize(as: .PNG)
        let options = request.options
        #expect(
            options.processor.identifier
                == (DownsamplingImageProcessor(size: CGSize(width: 64, height: 64))
                |> BlurImageProcessor(blurRadius: 2)).identifier)
        #expect(options.forceRefresh && options.cacheOriginalImage && options.forceTransition)
        #expect(options.targetCache === cache)
        #expect((options.retryStrategy as? DelayRetryStrategy)?.maxRetryCount == 2)
        #expect(options.lowDataModeSource?.url?.lastPathComponent == "small.png")
        #expect(options.onFailureImage != nil)
        #expect(options.cacheSerializer is FormatIndicatedCacheSerializer)
    }

    @Test func resultBlocksAreKeptInTheDelegates() {
        let request = ThumbnailRequest()
        let calls = Locked<[String]>([])
        _ =
            request
            .onSuccess { _ in calls.withLock { $0.append("success") } }
            .onFailure { error in calls.withLock { $0.append("failure \(error.errorCode)") } }
            .onProgress { received, total in calls.withLock { $0.append("progress \(received)/\(total)") } }
        #expect(request.onSuccessDelegate.isSet && request.onFailureDelegate.isSet && request.onProgressDelegate.isSet)
        _ = request.onFailureDelegate.call(.requestError(reason: .emptyRequest))
        _ = request.onProgressDelegate.call((1, 2))
        #expect(calls.withLock { $0 } == ["failure 1001", "progress 1/2"])
        _ = request.onFailure(nil)
        #expect(!request.onFailureDelegate.isSet)
    }

    @Test func theBuilderCallsItsDelegates() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png()))
            let builder = KF.url(f.server.url("/a.png")).manager(f.manager)
            let succeeded = ResultlessCounter()
            _ = builder.onSuccess { _ in succeeded.increment() }
            _ = try await builder.retrieve()
            await succeeded.wait(for: 1)
            #expect(succeeded.count == 1)
            // The delegate is public, as Kingfisher's: another block can be attached to it directly
            let replaced = ResultlessCounter()
            final class Owner: Sendable {}
            let owner = Owner()
            builder.onSuccessDelegate.delegate(on: owner) { _, _ in replaced.increment() }
            _ = try await builder.retrieve()
            await replaced.wait(for: 1)
            #expect(replaced.count == 1 && succeeded.count == 1)
        }
    }

    @Test func theRedirectBlockReceivesARedirectPayload() async throws {
        try await withManager { f in
            f.server.route("/old.png", .redirect(to: "/new.png"))
            f.server.route("/new.png", .ok(Fixtures.png()))
            f.server.route("/other.png", .ok(Fixtures.png(width: 9, height: 9)))
            let seen = Locked<(status: Int, next: String?, original: String?)?>(nil)
            let result = try await KF.url(f.server.url("/old.png")).manager(f.manager)
                .redirectHandler { (payload: KF.RedirectPayload) in
                    seen.withLock {
                        $0 = (
                            payload.response.statusCode, payload.newRequest.url?.path,
                            payload.task.originalURL?.path
                        )
                    }
                    var changed = payload.newRequest
                    changed.url = f.server.url("/other.png")
                    payload.completionHandler(changed)
                }
                .retrieve()
            #expect(result.image.kf.size == CGSize(width: 9, height: 9))
            let payload = try #require(seen.withLock { $0 })
            #expect(payload.status == 302 && payload.next == "/new.png" && payload.original == "/old.png")
            #expect(f.server.hits("/new.png") == 0)
        }
    }

    @Test func sourceIdentifiersAreIssuedInIncreasingOrder() async throws {
        let first = RecordingTarget()
        let second = RecordingTarget()
        let url = URL(string: "http://127.0.0.1:1/a.png")!
        first.kf.setImage(with: url)
        second.kf.setImage(with: url)
        let a: Source.Identifier.Value = try #require(first.kf.taskIdentifier)
        let b: Source.Identifier.Value = try #require(second.kf.taskIdentifier)
        #expect(b > a)
        first.kf.cancelDownloadTask()
        second.kf.cancelDownloadTask()
    }
}
