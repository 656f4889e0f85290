import Foundation
import Kingfisher
import KingfisherTestSupport
import KingfisherLocking
import Testing

/// Where progress blocks run. Kingfisher calls them on the main queue; here they run on the options' callback
/// queue, `.untouch` by default (the thread that read the bytes), so nothing needs a main run loop. These tests are
/// `async` and never touch `DispatchQueue.main`: the test runner does not drain the main queue for them, so a
/// block sent there would never run.
@Suite(.timeLimit(.minutes(1)))
struct DownloadProgressTests {
    private static func route(_ server: TestHTTPServer, _ png: Data) {
        server.route(
            "/p.png",
            .init(body: png, chunkSize: 4096, delayBetweenChunks: .milliseconds(1), contentLength: Int64(png.count)))
    }

    @Test func downloaderProgressRunsWithoutTheMainQueue() async throws {
        try await withDownloader { server, downloader in
            let png = Fixtures.png(width: 200, height: 200)
            Self.route(server, png)
            let onMain = Locked(false)
            let progress = ProgressRecorder()
            _ = try await downloader.downloadImage(
                with: server.url("/p.png"), options: nil,
                progressBlock: { received, total in
                    if Thread.isMainThread { onMain.withLock { $0 = true } }
                    progress.block(received, total)
                })
            #expect(progress.reports.last?.0 == Int64(png.count))
            #expect(!onMain.withLock { $0 })
        }
    }

    @Test func managerAndBuilderProgressRunWithoutTheMainQueue() async throws {
        try await withManager { f in
            let png = Fixtures.png(width: 200, height: 200)
            Self.route(f.server, png)
            let progress = ProgressRecorder()
            _ = try await f.manager.retrieveImage(
                with: f.server.url("/p.png"), options: [.forceRefresh, .cacheMemoryOnly],
                progressBlock: progress.block)
            #expect(progress.reports.last?.0 == Int64(png.count))

            let builderProgress = ProgressRecorder()
            _ = try await KF.url(f.server.url("/p.png")).manager(f.manager).forceRefresh().cacheMemoryOnly()
                .onProgress(builderProgress.block).retrieve()
            #expect(builderProgress.reports.last?.0 == Int64(png.count))
        }
    }

    @Test func aDispatchCallbackQueueIsHonoured() async throws {
        try await withDownloader { server, downloader in
            let png = Fixtures.png(width: 200, height: 200)
            Self.route(server, png)
            let queue = DispatchQueue(label: "progress-test")
            let key = DispatchSpecificKey<Int>()
            queue.setSpecific(key: key, value: 7)
            let onQueue = Locked<[Bool]>([])
            _ = try await downloader.downloadImage(
                with: server.url("/p.png"), options: [.callbackQueue(.dispatch(queue))],
                progressBlock: { _, _ in onQueue.withLock { $0.append(DispatchQueue.getSpecific(key: key) == 7) } })
            #expect(!onQueue.withLock { $0 }.isEmpty)
            #expect(onQueue.withLock { $0 }.allSatisfy { $0 })
        }
    }
}
