import Foundation
import Kingfisher
import KingfisherTestSupport
import Testing
import KingfisherLocking

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A downloader subclass that counts the calls of Kingfisher's open entry point and passes them on.
final class CountingDownloader: ImageDownloader, @unchecked Sendable {
    // @unchecked: the subclass of an open class; its one counter is behind a lock.
    private let calls = Locked<[URL]>([])

    var urls: [URL] { calls.withLock { $0 } }

    override func downloadImage(
        with url: URL, options: KingfisherParsedOptionsInfo,
        completionHandler: (@Sendable (Result<ImageLoadingResult, KingfisherError>) -> Void)? = nil
    ) -> DownloadTask {
        calls.withLock { $0.append(url) }
        return super.downloadImage(with: url, options: options, completionHandler: completionHandler)
    }
}

/// A subclass that answers from memory without calling `super`.
final class CannedDownloader: ImageDownloader, @unchecked Sendable {
    // @unchecked: the subclass of an open class; it adds immutable state only.
    let image: KFCrossPlatformImage
    let data: Data

    init(data: Data) throws {
        self.data = data
        image = try KFCrossPlatformImage(decoding: data)
        super.init(name: "canned")
    }

    override func downloadImage(
        with url: URL, options: KingfisherParsedOptionsInfo,
        completionHandler: (@Sendable (Result<ImageLoadingResult, KingfisherError>) -> Void)? = nil
    ) -> DownloadTask {
        let loaded = ImageLoadingResult(image: image, url: url, originalData: data)
        completionHandler?(.success(loaded))
        return super.downloadImage(with: URL(string: "unused://")!, options: options, completionHandler: nil)
    }
}

@Suite(.timeLimit(.minutes(1)))
struct ImageDownloaderSubclassTests {
    @Test func theManagerCallsTheSubclassOverride() async throws {
        try await withTemporaryDirectory { directory in
            let server = try await TestHTTPServer.start()
            server.route("/a.png", .ok(Fixtures.png(width: 20, height: 10)))
            let downloader = CountingDownloader(name: "counting")
            let manager = KingfisherManager(downloader: downloader, cache: try makeCache(in: directory))
            // When the manager retrieves an image, with a progress block
            let progress = ProgressRecorder()
            let result = try await manager.retrieveImage(
                with: server.url("/a.png"), options: [.waitForCache], progressBlock: progress.block)
            // Then the download went through the override, once, and progress still reached the caller
            #expect(result.image.kf.size == CGSize(width: 20, height: 10))
            #expect(downloader.urls == [server.url("/a.png")])
            #expect(progress.reports.last?.0 == Int64(Fixtures.png(width: 20, height: 10).count))
            // And a cache hit does not download
            _ = try await manager.retrieveImage(with: server.url("/a.png"))
            #expect(downloader.urls.count == 1)
            try await downloader.shutdown()
            try await server.shutdown()
        }
    }

    @Test func everyDownloadMethodGoesThroughTheOverride() async throws {
        let server = try await TestHTTPServer.start()
        server.route("/a.png", .ok(Fixtures.png()))
        let downloader = CountingDownloader(name: "counting")
        let url = server.url("/a.png")
        _ = try await downloader.downloadImage(with: url)
        _ = try await downloader.downloadImage(with: url, options: KingfisherParsedOptionsInfo(nil))
        let collector = ResultCollector()
        downloader.downloadImage(with: url, options: nil, progressBlock: nil, completionHandler: collector.handler)
        downloader.downloadImage(with: url, completionHandler: collector.handler)
        // Kingfisher's trailing-closure forms resolve without ambiguity
        let handler = collector.handler
        downloader.downloadImage(with: url) { handler($0) }
        downloader.downloadImage(with: url, options: [.forceRefresh]) { handler($0) }
        _ = downloader.downloadImage(with: url, options: KingfisherParsedOptionsInfo(nil)) { handler($0) }
        await collector.wait(for: 5)
        #expect(downloader.urls.count == 7)
        try await downloader.shutdown()
        try await server.shutdown()
    }

    @Test func anOverrideThatDoesNotCallSuperIsUsedByTheManager() async throws {
        try await withTemporaryDirectory { directory in
            let png = Fixtures.png(width: 7, height: 5)
            let downloader = try CannedDownloader(data: png)
            let manager = KingfisherManager(downloader: downloader, cache: try makeCache(in: directory))
            // No server: the override answers
            let result = try await manager.retrieveImage(
                with: URL(string: "http://127.0.0.1:1/never.png")!, options: [.waitForCache])
            #expect(result.image.kf.size == CGSize(width: 7, height: 5))
            #expect(result.cacheType == .none)
            try await downloader.shutdown()
        }
    }

    @Test func isInitializedOnceAttachedToAnHTTPTask() async throws {
        try await withDownloader { server, downloader in
            server.route("/a.png", .init(body: Fixtures.png(), held: true))
            let gate = Gate()
            // A request modifier that waits: the task exists before it is attached
            let modifier = HeldModifier(gate: gate)
            let collector = ResultCollector()
            let task = downloader.downloadImage(
                with: server.url("/a.png"), options: [.requestModifier(modifier)], completionHandler: collector.handler)
            #expect(!task.isInitialized)
            #expect(task.sessionTask == nil)
            gate.open()
            await server.waitForRequests("/a.png")
            #expect(task.isInitialized)
            #expect(task.sessionTask != nil && task.cancelToken != nil)
            server.release("/a.png")
            await collector.wait(for: 1)
        }
    }

    @Test func aSynchronousModifierIsAppliedAndAttachedBeforeDownloadImageReturns() async throws {
        try await withDownloader { server, downloader in
            server.route("/b.png", .ok(Fixtures.png()))
            let target = server.url("/b.png")
            let modifier = AnyModifier { request in
                var request = request
                request.url = target
                return request
            }
            let collector = ResultCollector()
            // As in Kingfisher: a synchronous modifier runs inside downloadImage, which returns an attached task
            let task = downloader.downloadImage(
                with: server.url("/a.png"), options: [.requestModifier(modifier)], completionHandler: collector.handler)
            #expect(task.isInitialized)
            #expect(task.sessionTask?.originalURL == target)
            await collector.wait(for: 1)
            #expect((try? collector.results[0].get())?.url == target)
            // And one that refuses the request fails without a request, once
            let refused = ResultCollector()
            let none = downloader.downloadImage(
                with: target, options: [.requestModifier(AnyModifier { _ in nil })], completionHandler: refused.handler)
            await refused.wait(for: 1)
            #expect(!none.isInitialized)
            guard case .failure(.requestError(reason: .emptyRequest)) = refused.results[0] else {
                Issue.record("expected emptyRequest, got \(refused.results[0])")
                return
            }
            #expect(server.hits("/b.png") == 1)
        }
    }
}

/// An async request modifier that waits for a gate.
struct HeldModifier: AsyncImageDownloadRequestModifier {
    let gate: Gate
    var onDownloadTaskStarted: (@Sendable (DownloadTask?) -> Void)? { nil }

    func modified(for request: URLRequest) async -> URLRequest? {
        await gate.wait()
        return request
    }
}
