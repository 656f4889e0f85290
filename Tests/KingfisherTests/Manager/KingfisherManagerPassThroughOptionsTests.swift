import Dispatch
import Foundation
import Kingfisher
import KingfisherTestSupport
import KingfisherLocking
import Testing

/// Records whether it ran on a queue marked with `key`.
final class QueueRecordingProcessor: ImageProcessor {
    let identifier = "test.queue-recording"
    let key: DispatchSpecificKey<Int>

    init(key: DispatchSpecificKey<Int>) { self.key = key }
    let ranOnQueue = Locked<[Bool]>([])

    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        ranOnQueue.withLock { $0.append(DispatchQueue.getSpecific(key: key) == 7) }
        return DefaultImageProcessor.default.process(item: item, options: options)
    }
}

@Suite(.timeLimit(.minutes(1)))
struct KingfisherManagerPassThroughOptionsTests {
    @Test func forcedCacheFileExtensionNamesTheFilesAndFindsThemAgain() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png()))
            let url = f.server.url("/a.png")
            _ = try await f.manager.retrieveImage(
                with: url, options: [.forcedCacheFileExtension("png"), .waitForCache])
            let path = f.cache.cachePath(forKey: url.cacheKey, forcedExtension: "png")
            #expect(path.hasSuffix(".png"))
            #expect(FileManager.default.fileExists(atPath: path))
            f.cache.clearMemoryCache()
            let again = try await f.manager.retrieveImage(with: url, options: [.forcedCacheFileExtension("png")])
            #expect(again.cacheType == .disk)
            #expect(f.server.hits("/a.png") == 1)
        }
    }

    @Test(arguments: [false, true])
    func processingQueueRunsTheProcessor(fromProvider: Bool) async throws {
        try await withManager { f in
            let png = Fixtures.png()
            f.server.route("/a.png", .ok(png))
            let queue = DispatchQueue(label: "manager-test-processing")
            let key = DispatchSpecificKey<Int>()
            queue.setSpecific(key: key, value: 7)
            let processor = QueueRecordingProcessor(key: key)
            let source: Source =
                fromProvider
                ? .provider(RawImageDataProvider(data: png, cacheKey: "p")) : .network(f.server.url("/a.png"))
            _ = try await f.manager.retrieveImage(
                with: source, options: [.processor(processor), .processingQueue(.dispatch(queue))])
            #expect(processor.ranOnQueue.withLock { $0 } == [true])
        }
    }

    @Test func loadDiskFileSynchronouslyStillServesDiskHits() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png()))
            let url = f.server.url("/a.png")
            _ = try await f.manager.retrieveImage(with: url, options: [.waitForCache])
            f.cache.clearMemoryCache()
            let hit = try await f.manager.retrieveImage(with: url, options: [.loadDiskFileSynchronously])
            #expect(hit.cacheType == .disk)
            #expect(f.server.hits("/a.png") == 1)
        }
    }

    @Test func imageModifierChangesEveryResultButNotTheCache() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png(width: 64, height: 48)))
            let url = f.server.url("/a.png")
            let modifier = AnyImageModifier { image in
                image.kf.resize(to: CGSize(width: 4, height: 3))
            }
            // Downloaded, then from memory: both handed over modified
            let first = try await f.manager.retrieveImage(
                with: url, options: [.imageModifier(modifier), .waitForCache])
            let second = try await f.manager.retrieveImage(with: url, options: [.imageModifier(modifier)])
            #expect(first.image.kf.size == CGSize(width: 4, height: 3))
            #expect(second.cacheType == .memory)
            #expect(second.image.kf.size == CGSize(width: 4, height: 3))
            // The cache keeps the unmodified image
            let cached = try #require(f.cache.retrieveImageInMemoryCache(forKey: url.cacheKey))
            #expect(cached.kf.size == CGSize(width: 64, height: 48))
        }
    }

    @Test func downloaderOptionPicksTheDownloader() async throws {
        try await withManager { f in
            f.server.route("/a.png", .ok(Fixtures.png()))
            let other = ImageDownloader(name: "other")
            let delegate = RecordingDelegate()
            other.delegate = delegate
            _ = try await f.manager.retrieveImage(with: f.server.url("/a.png"), options: [.downloader(other)])
            #expect(delegate.calls.withLock { $0.willDownload } == [f.server.url("/a.png")])
            try await other.shutdown()
        }
    }
}
