import Foundation
import Kingfisher
import KingfisherTestSupport
import KingfisherLocking
import Testing

/// Waits for a prefetcher's completion and records every progress report.
final class PrefetchRecorder: Sendable {
    typealias Lists = (skipped: [Source], failed: [Source], completed: [Source])
    private let state = Locked<(progress: [Lists], completions: [Lists])>(([], []))
    private let done = ResultlessCounter()

    var progress: PrefetcherSourceProgressBlock {
        { skipped, failed, completed in self.state.withLock { $0.progress.append((skipped, failed, completed)) } }
    }

    var completion: PrefetcherSourceCompletionHandler {
        { skipped, failed, completed in
            self.state.withLock { $0.completions.append((skipped, failed, completed)) }
            self.done.increment()
        }
    }

    var progressReports: [Lists] { state.withLock { $0.progress } }
    var completions: [Lists] { state.withLock { $0.completions } }

    func waitForCompletion() async { await done.wait(for: 1) }
}

@Suite(.timeLimit(.minutes(1)))
struct ImagePrefetcherTests {
    @Test func prefetchesIntoTheCacheAndReportsEachSource() async throws {
        try await withManager { f in
            // Given three images, one missing on the server
            f.server.route("/a.png", .ok(Fixtures.png()))
            f.server.route("/b.png", .ok(Fixtures.png()))
            f.server.route("/missing.png", .status(404))
            let urls = ["/a.png", "/b.png", "/missing.png"].map { f.server.url($0) }
            let recorder = PrefetchRecorder()
            let prefetcher = ImagePrefetcher(
                sources: urls.map { .network($0) }, options: [.waitForCache], progressBlock: recorder.progress,
                completionHandler: recorder.completion, manager: f.manager)
            // When they are prefetched
            prefetcher.start()
            await recorder.waitForCompletion()
            // Then two are cached on disk, one failed, and progress was reported after each
            let final = try #require(recorder.completions.first)
            #expect(Set(final.completed.compactMap(\.url)) == Set(urls.prefix(2)))
            #expect(final.failed.compactMap(\.url) == [urls[2]])
            #expect(final.skipped.isEmpty)
            #expect(recorder.progressReports.count == 3)
            #expect(f.cache.diskStorage.isCached(forKey: urls[0].cacheKey))
            #expect(f.cache.diskStorage.isCached(forKey: urls[1].cacheKey))
            #expect(recorder.completions.count == 1)
        }
    }

    @Test func cachedSourcesAreSkippedWithoutLoading() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png()))
            f.server.route("/b.png", .ok(Fixtures.png()))
            let a = f.server.url("/a.png")
            let b = f.server.url("/b.png")
            _ = try await f.manager.retrieveImage(with: a, options: [.waitForCache])
            _ = try await f.manager.retrieveImage(with: b, options: [.waitForCache])
            f.cache.memoryStorage.remove(forKey: b.cacheKey)
            // Given one image in memory and one on disk only
            let recorder = PrefetchRecorder()
            let prefetcher = ImagePrefetcher(
                resources: [a, b],
                completionHandler: { skipped, failed, completed in
                    recorder.completion(
                        skipped.map { $0.convertToSource() }, [], completed.map { $0.convertToSource() })
                }, manager: f.manager)
            prefetcher.start()
            await recorder.waitForCompletion()
            // Then both are skipped, nothing is downloaded, and the disk one stays out of memory
            let final = try #require(recorder.completions.first)
            #expect(final.skipped.count == 2)
            #expect(final.completed.isEmpty)
            #expect(f.server.hits("/a.png") == 1)
            #expect(f.server.hits("/b.png") == 1)
            #expect(f.cache.imageCachedType(forKey: b.cacheKey) == .disk)
        }
    }

    @Test func alsoPrefetchToMemoryReadsDiskHitsIntoMemory() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png()))
            let a = f.server.url("/a.png")
            _ = try await f.manager.retrieveImage(with: a, options: [.waitForCache])
            f.cache.clearMemoryCache()
            let recorder = PrefetchRecorder()
            let prefetcher = ImagePrefetcher(
                sources: [.network(a)], options: [.alsoPrefetchToMemory], completionHandler: recorder.completion,
                manager: f.manager)
            prefetcher.start()
            await recorder.waitForCompletion()
            #expect(recorder.completions.first?.skipped.count == 1)
            #expect(f.cache.imageCachedType(forKey: a.cacheKey) == .memory)
            #expect(f.server.hits("/a.png") == 1)
        }
    }

    @Test func maxConcurrentDownloadsBoundsTheLoadsInFlight() async throws {
        try await withManager { f in
            let paths = (0..<6).map { "/\($0).png" }
            for path in paths { f.server.route(path, .init(body: Fixtures.png(), held: true)) }
            let recorder = PrefetchRecorder()
            let prefetcher = ImagePrefetcher(
                sources: paths.map { .network(f.server.url($0)) }, completionHandler: recorder.completion,
                manager: f.manager)
            prefetcher.maxConcurrentDownloads = 2
            prefetcher.start()
            // Two requests arrive; the others wait until one of them ends
            await f.server.waitForRequests(count: 2)
            #expect(f.server.totalHits == 2)
            for path in paths {
                await f.server.waitForRequests(path)
                f.server.release(path)
            }
            await recorder.waitForCompletion()
            #expect(recorder.completions.first?.completed.count == 6)
            #expect(f.server.maxInFlight == 2)
        }
    }

    @Test func stopCancelsTheLoadsInFlightAndCompletesOnce() async throws {
        try await withManager { f in
            let paths = (0..<4).map { "/\($0).png" }
            for path in paths { f.server.route(path, .init(body: Fixtures.png(), held: true)) }
            let recorder = PrefetchRecorder()
            let sources: [Source] = paths.map { .network(f.server.url($0)) }
            let prefetcher = ImagePrefetcher(
                sources: sources, options: [.waitForCache], progressBlock: recorder.progress,
                completionHandler: recorder.completion, manager: f.manager)
            prefetcher.maxConcurrentDownloads = 2
            prefetcher.start()
            await f.server.waitForRequests(count: 2)
            // When the prefetcher is stopped with two loads in flight
            prefetcher.stop()
            await recorder.waitForCompletion()
            for path in paths { f.server.release(path) }
            // Then those two fail as cancelled (one progress report each), the two never started are listed as failed
            // in the completion (as Kingfisher documents), and nothing is cached
            let final = try #require(recorder.completions.first)
            #expect(final.failed.count == 4)
            #expect(Set(final.failed.map(\.cacheKey)) == Set(sources.map(\.cacheKey)))
            #expect(final.completed.isEmpty)
            #expect(recorder.progressReports.map(\.failed.count).sorted() == [1, 2])
            #expect(f.server.totalHits == 2)
            prefetcher.stop()
            prefetcher.start()
            #expect(recorder.completions.count == 1)
            #expect(cacheFiles(in: f.cache.diskStorage.directoryURL).isEmpty)
        }
    }

    @Test func anEmptyListCompletesAtOnce() async throws {
        try await withManager { f in
            let recorder = PrefetchRecorder()
            ImagePrefetcher(sources: [], completionHandler: recorder.completion, manager: f.manager).start()
            await recorder.waitForCompletion()
            #expect(recorder.completions.count == 1)
        }
    }

    @Test func progressRunsOncePerSourceAndTheCompletionOnceAfterTheLast() async throws {
        try await withManager { f in
            // Given a cached image, a missing one and two to load, one at a time
            f.server.route("/cached.png", .ok(Fixtures.png()))
            f.server.route("/missing.png", .status(404))
            f.server.route("/a.png", .ok(Fixtures.png()))
            f.server.route("/b.png", .ok(Fixtures.png()))
            let cached = f.server.url("/cached.png")
            _ = try await f.manager.retrieveImage(with: cached, options: [.waitForCache])
            let recorder = PrefetchRecorder()
            let prefetcher = ImagePrefetcher(
                sources: [.network(cached)] + ["/missing.png", "/a.png", "/b.png"].map { .network(f.server.url($0)) },
                options: [.waitForCache], progressBlock: recorder.progress, completionHandler: recorder.completion,
                manager: f.manager)
            prefetcher.maxConcurrentDownloads = 1
            // When it runs to the end
            prefetcher.start()
            await recorder.waitForCompletion()
            // Then each source gave one progress report with the lists so far, in order (one at a time), and the
            // completion came once with every source in its list
            let counts = recorder.progressReports.map { [$0.skipped.count, $0.failed.count, $0.completed.count] }
            #expect(counts == [[1, 0, 0], [1, 1, 0], [1, 1, 1], [1, 1, 2]])
            #expect(recorder.completions.count == 1)
            let final = try #require(recorder.completions.first)
            #expect(final.skipped.map(\.cacheKey) == [cached.cacheKey])
            #expect(final.failed.map(\.url) == [f.server.url("/missing.png")])
            #expect(final.completed.count == 2)
            #expect(f.server.hits("/cached.png") == 1)
            prefetcher.stop()
            #expect(recorder.completions.count == 1)
        }
    }

    @Test func theRetryStrategyIsHonoured() async throws {
        try await withManager { f in
            // Given a server that fails once with 500, then serves the image
            f.server.route("/flaky.png", sequence: [.status(500), .ok(Fixtures.png())])
            f.server.route("/broken.png", .status(500))
            let recorder = PrefetchRecorder()
            let strategy = DelayRetryStrategy(maxRetryCount: 1, retryInterval: .seconds(0))
            let prefetcher = ImagePrefetcher(
                sources: [.network(f.server.url("/flaky.png")), .network(f.server.url("/broken.png"))],
                options: [.retryStrategy(strategy), .waitForCache], completionHandler: recorder.completion,
                manager: f.manager)
            // When both are prefetched with one retry allowed
            prefetcher.start()
            await recorder.waitForCompletion()
            // Then the flaky one is loaded on its second request and the broken one fails after exactly two
            let final = try #require(recorder.completions.first)
            #expect(final.completed.map(\.url) == [f.server.url("/flaky.png")])
            #expect(final.failed.map(\.url) == [f.server.url("/broken.png")])
            #expect(f.server.hits("/flaky.png") == 2)
            #expect(f.server.hits("/broken.png") == 2)
            #expect(f.cache.isCached(forKey: f.server.url("/flaky.png").cacheKey))
        }
    }

    @Test func withoutARetryStrategyAFailureIsFinal() async throws {
        try await withManager { f in
            f.server.route("/flaky.png", sequence: [.status(500), .ok(Fixtures.png())])
            let recorder = PrefetchRecorder()
            ImagePrefetcher(
                sources: [.network(f.server.url("/flaky.png"))], completionHandler: recorder.completion,
                manager: f.manager
            ).start()
            await recorder.waitForCompletion()
            #expect(recorder.completions.first?.failed.count == 1)
            #expect(f.server.hits("/flaky.png") == 1)
        }
    }

    @Test func forceRefreshLoadsCachedSourcesAgain() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png()))
            let a = f.server.url("/a.png")
            _ = try await f.manager.retrieveImage(with: a, options: [.waitForCache])
            let recorder = PrefetchRecorder()
            ImagePrefetcher(
                sources: [.network(a)], options: [.forceRefresh, .waitForCache], completionHandler: recorder.completion,
                manager: f.manager
            ).start()
            await recorder.waitForCompletion()
            #expect(recorder.completions.first?.completed.count == 1)
            #expect(recorder.completions.first?.skipped.isEmpty == true)
            #expect(f.server.hits("/a.png") == 2)
        }
    }

    @Test func tenThousandCachedSourcesRunInConstantStack() async throws {
        try await withManager { f in
            // Given 10,000 sources whose image is in the memory cache (each found at once, on the same thread)
            let count = 10_000
            let image = Fixtures.gradient(width: 2, height: 2)
            let sources: [Source] = (0..<count).map { index in
                let url = f.server.url("/never/\(index).png")
                f.cache.store(image, forKey: "cached-\(index)", toDisk: false)
                return .network(KF.ImageResource(downloadURL: url, cacheKey: "cached-\(index)"))
            }
            // When they are prefetched, noting how deep in its thread's stack each progress report runs
            let depths = Locked<[UInt: (low: UInt, high: UInt)]>([:])
            let recorder = PrefetchRecorder()
            let prefetcher = ImagePrefetcher(
                sources: sources,
                progressBlock: { _, _, _ in
                    var marker = 0
                    let address = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
                    let thread = UInt(bitPattern: Int(bitPattern: pthread_self()))
                    depths.withLock { depths in
                        let seen = depths[thread] ?? (address, address)
                        depths[thread] = (min(seen.low, address), max(seen.high, address))
                    }
                }, completionHandler: recorder.completion, manager: f.manager)
            let start = ContinuousClock.now
            prefetcher.start()
            await recorder.waitForCompletion()
            // Then every one is skipped without a request, quickly, and the reports of one thread all run at about
            // the same depth: beginning each next source from the last one's end nested one level per source
            #expect(recorder.completions.first?.skipped.count == count)
            #expect(f.server.totalHits == 0)
            #expect(ContinuousClock.now - start < .seconds(20))
            let spread = depths.withLock { $0.values.map { $0.high - $0.low }.max() ?? 0 }
            #expect(spread < 64 * 1024, "progress reports spread over \(spread) bytes of stack")
        }
    }

    @Test func stoppingBeforeStartCompletesAtOnceWithEverySourceFailed() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png()))
            let recorder = PrefetchRecorder()
            let prefetcher = ImagePrefetcher(
                sources: [.network(f.server.url("/a.png"))], progressBlock: recorder.progress,
                completionHandler: recorder.completion, manager: f.manager)
            prefetcher.stop()
            prefetcher.start()
            await recorder.waitForCompletion()
            #expect(recorder.completions.count == 1)
            #expect(recorder.completions.first?.failed.count == 1)
            #expect(recorder.progressReports.isEmpty)
            #expect(f.server.totalHits == 0)
        }
    }
}
