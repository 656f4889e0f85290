import Foundation
import Kingfisher
import KingfisherTestSupport
import KingfisherLocking
import Testing

/// Records, for each time the disk storage reads its clock, whether that ran inside a Swift task. The clock is read
/// by every existence probe (`isCached`), so a probe on the cache's I/O queue shows up as "not inside a task" and
/// one on the caller's thread or the retrieval's task as "inside a task".
final class ProbeContextRecorder: Sendable {
    private let calls = Locked<[Bool]>([])

    var now: @Sendable () -> Date {
        { [self] in
            let insideTask = withUnsafeCurrentTask { $0 != nil }
            calls.withLock { $0.append(insideTask) }
            return Date()
        }
    }

    var anyInsideTask: Bool { calls.withLock { $0.contains(true) } }
    var count: Int { calls.withLock { $0.count } }

    func reset() { calls.withLock { $0 = [] } }
}

@Suite(.timeLimit(.minutes(1)))
struct AsyncCacheTypeCheckTests {
    /// A cache in `directory` whose disk clock is `recorder`'s.
    private func recordingCache(in directory: URL, recorder: ProbeContextRecorder) throws -> ImageCache {
        var config = diskConfig(directory)
        config.now = recorder.now
        let memory = MemoryStorage.Backend<KFCrossPlatformImage>(
            config: MemoryStorage.Config(totalCostLimit: 0, cleanInterval: 0))
        return ImageCache(memoryStorage: memory, diskStorage: try DiskStorage.Backend<Data>(config: config))
    }

    private func storeOnDisk(_ data: Data, forKey key: String, in cache: ImageCache) async {
        await withSanitizedCheckedContinuation { continuation in
            cache.storeToDisk(data, forKey: key) { _ in continuation.resume() }
        }
    }

    @Test(arguments: [false, true])
    func prefetcherProbesOffTheCallersThreadOnlyWithTheOption(async: Bool) async throws {
        try await withTemporaryDirectory { directory in
            try await withDownloader { server, downloader in
                // Given an image already on disk and a prefetcher for it
                let recorder = ProbeContextRecorder()
                let cache = try recordingCache(in: directory, recorder: recorder)
                let manager = KingfisherManager(downloader: downloader, cache: cache)
                server.route("/a.png", .ok(Fixtures.png()))
                let url = server.url("/a.png")
                await storeOnDisk(Fixtures.png(), forKey: url.cacheKey, in: cache)
                recorder.reset()
                let prefetched = PrefetchRecorder()
                let prefetcher = ImagePrefetcher(
                    sources: [.network(url)], options: async ? [.asyncCacheTypeCheck] : [],
                    completionHandler: prefetched.completion, manager: manager)
                // When it starts from this task
                prefetcher.start()
                await prefetched.waitForCompletion()
                // Then the image is skipped either way, and the probe ran on this task only without the option
                #expect(prefetched.completions.first?.skipped.count == 1)
                #expect(server.hits("/a.png") == 0)
                #expect(recorder.count > 0)
                #expect(recorder.anyInsideTask == !async)
            }
        }
    }

    /// Unlike Kingfisher, whose manager probes on the caller's thread without the option, the retrieval runs in a
    /// task of the cooperative pool: a `stat` there would hold one of its few threads, so it always probes on the
    /// cache's I/O threads.
    @Test(arguments: [false, true])
    func managerProbesTheOriginalOnTheIOThreadsWithOrWithoutTheOption(async: Bool) async throws {
        try await withTemporaryDirectory { directory in
            try await withDownloader { server, downloader in
                // Given an original on disk and no processed image
                let recorder = ProbeContextRecorder()
                let cache = try recordingCache(in: directory, recorder: recorder)
                let manager = KingfisherManager(downloader: downloader, cache: cache)
                server.route("/a.png", .ok(Fixtures.png(width: 64, height: 48)))
                let url = server.url("/a.png")
                await storeOnDisk(Fixtures.png(width: 64, height: 48), forKey: url.cacheKey, in: cache)
                recorder.reset()
                // When it is retrieved with a processor
                let processor = ResizingImageProcessor(referenceSize: CGSize(width: 16, height: 12))
                var options: KingfisherOptionsInfo = [.processor(processor), .waitForCache]
                if async { options.append(.asyncCacheTypeCheck) }
                let result = try await manager.retrieveImage(with: url, options: options)
                // Then the original is processed again without a download either way
                #expect(result.image.kf.size == CGSize(width: 16, height: 12))
                #expect(server.hits("/a.png") == 0)
                #expect(cache.imageCachedType(forKey: url.cacheKey, processorIdentifier: processor.identifier) != .none)
                // And every disk access ran on the I/O threads, not in a task
                #expect(recorder.count > 0)
                #expect(!recorder.anyInsideTask)
            }
        }
    }
}
