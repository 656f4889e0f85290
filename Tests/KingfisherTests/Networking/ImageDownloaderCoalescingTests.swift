import Foundation
import Kingfisher
import KingfisherTestSupport
import KingfisherLocking
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Concurrent callers of one URL share one HTTP request; each cancels only itself.
@Suite(.timeLimit(.minutes(1)))
struct ImageDownloaderCoalescingTests {
    @Test func hundredConcurrentRequestsMakeOneServerHit() async throws {
        try await withDownloader { server, downloader in
            // Given a response held until every caller has started
            let png = Fixtures.png()
            server.route("/one.png", .init(body: png, held: true))
            let url = server.url("/one.png")
            let collector = ResultCollector()
            // When 100 callers start from 100 concurrent tasks
            let tasks = await withTaskGroup(of: DownloadTask.self) { group in
                for _ in 0..<100 {
                    group.addTask { downloader.downloadImage(with: url, completionHandler: collector.handler) }
                }
                return await group.reduce(into: [DownloadTask]()) { $0.append($1) }
            }
            await server.waitForRequests("/one.png")
            server.release("/one.png")
            await collector.wait(for: 100)
            // Then all got the image from one request, each with its own task and token
            #expect(server.hits("/one.png") == 1)
            #expect(collector.results.allSatisfy { (try? $0.get())?.originalData == png })
            let session = try #require(tasks.first?.sessionTask)
            #expect(tasks.allSatisfy { $0.sessionTask === session })
            #expect(Set(tasks.compactMap(\.cancelToken)).count == 100)
        }
    }

    @Test func differentModifiedRequestsAreNotCoalesced() async throws {
        try await withDownloader { server, downloader in
            server.route("/a.png", .init(body: Fixtures.png(), held: true))
            let url = server.url("/a.png")
            let collector = ResultCollector()
            for token in ["x", "y"] {
                let modifier = AnyModifier { request in
                    var request = request
                    request.setValue(token, forHTTPHeaderField: "X-Token")
                    return request
                }
                downloader.downloadImage(
                    with: url, options: [.requestModifier(modifier)], completionHandler: collector.handler)
            }
            await server.waitForRequests("/a.png", count: 2)
            server.release("/a.png")
            await collector.wait(for: 2)
            #expect(server.hits("/a.png") == 2)
        }
    }

    @Test func cancellingOneCallerLeavesTheOthers() async throws {
        try await withDownloader { server, downloader in
            server.route("/a.png", .init(body: Fixtures.png(), held: true))
            let url = server.url("/a.png")
            let first = ResultCollector()
            let second = ResultCollector()
            let third = ResultCollector()
            downloader.downloadImage(with: url, completionHandler: first.handler)
            let task = downloader.downloadImage(with: url, completionHandler: second.handler)
            downloader.downloadImage(with: url, completionHandler: third.handler)
            await server.waitForRequests("/a.png")
            // When the second caller cancels mid-download
            task.cancel()
            await second.wait(for: 1)
            guard case .requestError(reason: .taskCancelled(_, let token)) = second.results[0].error else {
                Issue.record("expected taskCancelled, got \(second.results[0])")
                return
            }
            #expect(token == task.cancelToken)
            // Then the request goes on for the others
            server.release("/a.png")
            await first.wait(for: 1)
            await third.wait(for: 1)
            #expect((try? first.results[0].get()) != nil)
            #expect((try? third.results[0].get()) != nil)
            #expect(second.results.count == 1)
            #expect(server.hits("/a.png") == 1)
        }
    }

    @Test func lastCallerCancellingCancelsTheRequest() async throws {
        try await withDownloader { server, downloader in
            let delegate = RecordingDelegate()
            downloader.delegate = delegate
            server.route("/a.png", .init(body: Fixtures.png(), held: true))
            let url = server.url("/a.png")
            let collector = ResultCollector()
            let tasks = (0..<2).map { _ in downloader.downloadImage(with: url, completionHandler: collector.handler) }
            await server.waitForRequests("/a.png")
            let session = try #require(tasks[0].sessionTask)
            for task in tasks { task.cancel() }
            await collector.wait(for: 2)
            #expect(collector.results.allSatisfy { $0.error?.isTaskCancelled == true })
            // The HTTP task ended (the delegate hears of it once, with an error) and is not reused
            await delegate.finished.wait(for: 1)
            #expect(delegate.calls.withLock { $0.didFinish.map(\.failed) } == [true])
            #expect(session.containsCallbacks == false)
            #expect(session.isTaskCancelled)
            server.release("/a.png")
            _ = try await downloader.downloadImage(with: url)
            #expect(server.hits("/a.png") == 2)
        }
    }

    @Test func cancellingBeforeTheRequestIsAttachedIsNotLost() async throws {
        try await withDownloader { server, downloader in
            server.route("/a.png", .ok(Fixtures.png()))
            // Given an async modifier that holds the request until a gate opens
            let gate = Gate()
            let entered = Gate()
            let modifier = GatedModifier(entered: entered, gate: gate)
            let collector = ResultCollector()
            let task = downloader.downloadImage(
                with: server.url("/a.png"), options: [.requestModifier(modifier)], completionHandler: collector.handler)
            await entered.wait()
            // When the caller cancels before the request reaches the downloader
            #expect(task.sessionTask == nil)
            task.cancel()
            await collector.wait(for: 1)
            gate.open()
            // Then it gets a cancellation, once, and nothing is sent
            #expect(collector.results[0].error?.isTaskCancelled == true)
            #expect(collector.results[0].error?.errorCode == 1005)
            await modifier.started.wait(for: 1)
            #expect(server.totalHits == 0)
            #expect(collector.results.count == 1)
        }
    }

    @Test func cancellingWhileTheImageIsProcessedIsNotLost() async throws {
        try await withDownloader { server, downloader in
            // Given a processor that blocks until released, so the data has arrived but no result is delivered
            server.route("/a.png", .ok(Fixtures.png()))
            let processor = BlockingProcessor()
            let collector = ResultCollector()
            let task = downloader.downloadImage(
                with: server.url("/a.png"), options: [.processor(processor)], completionHandler: collector.handler)
            await processor.entered.wait(for: 1)
            // When the caller cancels during processing
            task.cancel()
            await collector.wait(for: 1)
            processor.release.signal()
            // Then it gets the cancellation at once, and only that
            #expect(collector.results[0].error?.isTaskCancelled == true)
            #expect(task.isCancelled)
            #expect(collector.results.count == 1)
        }
    }

    @Test func cancellingAnAsyncCallCancelsOnlyThatCaller() async throws {
        try await withDownloader { server, downloader in
            server.route("/a.png", .init(body: Fixtures.png(), held: true))
            let url = server.url("/a.png")
            let other = ResultCollector()
            downloader.downloadImage(with: url, completionHandler: other.handler)
            let cancelled = Task { try await downloader.downloadImage(with: url) }
            await server.waitForRequests("/a.png")
            cancelled.cancel()
            do {
                _ = try await cancelled.value
                Issue.record("expected a cancellation error")
            } catch let error as KingfisherError {
                #expect(error.isTaskCancelled)
            }
            server.release("/a.png")
            await other.wait(for: 1)
            #expect((try? other.results[0].get()) != nil)
        }
    }

    @Test func eachCallerOfASharedDownloadGetsItsOwnProgress() async throws {
        try await withDownloader { server, downloader in
            // Given a body sent in two halves, the second once the first has been read
            let png = Fixtures.png(width: 128, height: 128)
            server.route(
                "/a.png", .init(body: png, contentLength: Int64(png.count), holdAfterBodyBytes: png.count / 2))
            let url = server.url("/a.png")
            let (first, second) = (ProgressRecorder(), ProgressRecorder())
            let collector = ResultCollector()
            // When a caller starts it, and a second joins while its body arrives
            downloader.downloadImage(with: url, progressBlock: first.block, completionHandler: collector.handler)
            #expect(await eventually(timeout: 40) { !first.reports.isEmpty })
            downloader.downloadImage(with: url, progressBlock: second.block, completionHandler: collector.handler)
            server.release("/a.png")
            await collector.wait(for: 2)
            // Then both got the image from one request, and each its own progress to the end
            #expect(collector.results.allSatisfy { (try? $0.get())?.originalData == png })
            #expect(server.hits("/a.png") == 1)
            #expect(first.reports.last?.0 == Int64(png.count))
            #expect(second.reports.last?.0 == Int64(png.count))
        }
    }

    @Test func cancelURLReachesADownloadBeforeItsRequestIsSent() async throws {
        try await withDownloader { server, downloader in
            server.route("/a.png", .init(body: Fixtures.png(), held: true))
            let collector = ResultCollector()
            downloader.downloadImage(with: server.url("/a.png"), completionHandler: collector.handler)
            // At once: the download is joined, its fetch maybe not queued yet
            downloader.cancel(url: server.url("/a.png"))
            await collector.wait(for: 1)
            #expect(collector.results[0].error?.isTaskCancelled == true)
            server.release("/a.png")
        }
    }

    @Test func cancelURLAndCancelAll() async throws {
        try await withDownloader { server, downloader in
            server.route("/a.png", .init(body: Fixtures.png(), held: true))
            server.route("/b.png", .init(body: Fixtures.png(), held: true))
            let a = ResultCollector()
            let b = ResultCollector()
            downloader.downloadImage(with: server.url("/a.png"), completionHandler: a.handler)
            downloader.downloadImage(with: server.url("/a.png"), completionHandler: a.handler)
            downloader.downloadImage(with: server.url("/b.png"), completionHandler: b.handler)
            await server.waitForRequests(count: 2)
            downloader.cancel(url: server.url("/a.png"))
            await a.wait(for: 2)
            #expect(a.results.allSatisfy { $0.error?.isTaskCancelled == true })
            #expect(b.results.isEmpty)
            downloader.cancelAll()
            await b.wait(for: 1)
            #expect(b.results[0].error?.isTaskCancelled == true)
        }
    }
}

/// Waits on a gate inside the (async) request modifier.
struct GatedModifier: AsyncImageDownloadRequestModifier {
    let entered: Gate
    let gate: Gate
    let started = ResultlessCounter()

    func modified(for request: URLRequest) async -> URLRequest? {
        entered.open()
        await gate.wait()
        return request
    }

    var onDownloadTaskStarted: (@Sendable (DownloadTask?) -> Void)? {
        { _ in started.increment() }
    }
}

/// Blocks its pool thread until `release` is signalled, after telling `entered`.
struct BlockingProcessor: ImageProcessor {
    let identifier = "com.example.blocking"
    let entered = ResultlessCounter()
    let release = DispatchSemaphore(value: 0)

    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        entered.increment()
        release.wait()
        return DefaultImageProcessor.default.process(item: item, options: options)
    }
}
