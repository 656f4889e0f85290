import Foundation
import KingfisherLocking
import KingfisherTestSupport
import Testing

@testable import Kingfisher

/// Concurrent retrievals share work at every stage: one download per source, one decode-and-process run per source
/// and processor, one disk read per entry.
@Suite(.timeLimit(.minutes(2)))
struct StageCoalescingTests {
    @Test func aThousandRetrievalsOfFiftySourcesWithTwoProcessorsMakeFiftyDownloadsAndAHundredRuns() async throws {
        let configuration = ImageDownloader.Configuration(maxConcurrentDownloads: 64)
        try await withTemporaryDirectory { directory in
            try await withDownloader(configuration: configuration) { server, downloader in
                // Given 50 sources whose responses are held until every retrieval has joined
                let sources = 50
                for index in 0..<sources {
                    server.route("/\(index).png", .init(body: Fixtures.png(width: 32, height: 24), held: true))
                }
                let manager = KingfisherManager(downloader: downloader, cache: try makeCache(in: directory))
                let processors = [HalvingCounter(name: "a"), HalvingCounter(name: "b")]
                // When 1,000 retrievals start at once: 10 per source and processor
                let retrievals = Task {
                    await withTaskGroup(of: Result<RetrieveImageResult, KingfisherError>.self) { group in
                        for index in 0..<1000 {
                            let url = server.url("/\(index % sources).png")
                            let processor = processors[(index / sources) % 2]
                            group.addTask {
                                await manager.callbackResult(.network(url), options: [.processor(processor)])
                            }
                        }
                        return await group.reduce(into: []) { $0.append($1) }
                    }
                }
                let joined = await eventually(timeout: 60) { downloader.waitingCallers == 1000 }
                #expect(joined, "every retrieval joins a download: \(downloader.waitingCallers)")
                for index in 0..<sources { server.release("/\(index).png") }
                let results = await retrievals.value
                // Then every retrieval has its image, from 50 requests and 100 processing runs
                #expect(results.count == 1000)
                #expect(results.allSatisfy { (try? $0.get())?.image.pixelWidth == 16 })
                #expect((0..<sources).allSatisfy { server.hits("/\($0).png") == 1 })
                #expect(processors.map(\.runs) == [50, 50])
            }
        }
    }

    @Test func concurrentDiskHitsOfOneEntryShareOneRead() async throws {
        try await withTemporaryDirectory { directory in
            // Given an image on disk only
            let cache = try makeCache(in: directory)
            let image = try KFCrossPlatformImage(decoding: Fixtures.png(width: 20, height: 10))
            try await cache.store(image, forKey: "k", options: KingfisherParsedOptionsInfo(nil), toDisk: true)
            cache.clearMemoryCache()
            let startedBefore = cache.diskReads.startedCount
            // When 200 lookups ask for it at once
            let options = KingfisherParsedOptionsInfo(nil)
            let images = await withTaskGroup(of: KFCrossPlatformImage?.self) { group in
                for _ in 0..<200 {
                    group.addTask { try? await cache.imageFromDisk(forKey: "k", options: options)?.get() }
                }
                return await group.reduce(into: [KFCrossPlatformImage?]()) { $0.append($1) }
            }
            // Then all got it, from far fewer reads than lookups (those arriving together share one)
            #expect(images.allSatisfy { $0?.pixelWidth == 20 })
            let reads = cache.diskReads.startedCount - startedBefore
            #expect(reads >= 1 && reads < 200, "\(reads) reads for 200 concurrent lookups")
        }
    }
}

/// A processor that halves the image and counts its runs over downloaded bytes.
private final class HalvingCounter: ImageProcessor {
    let identifier: String
    private let count = Locked(0)

    init(name: String) {
        identifier = "test.counting.\(name)"
    }

    var runs: Int { count.withLock { $0 } }

    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        count.withLock { $0 += 1 }
        return ResizingImageProcessor(referenceSize: CGSize(width: 16, height: 12)).process(
            item: item, options: options)
    }
}

extension ImageDownloader {
    /// How many callers wait on this downloader's downloads now (each waits on the processing of its body).
    var waitingCallers: Int { processings.waitingCount }
}

/// Every decode and processing run happens on the decode executor, whose threads are as many as the cores.
@Suite(.timeLimit(.minutes(2)))
struct ImageWorkersBoundTests {
    @Test func neverMoreConcurrentProcessingRunsThanTheExecutorHasThreads() async throws {
        let configuration = ImageDownloader.Configuration(maxConcurrentDownloads: 32)
        try await withTemporaryDirectory { directory in
            try await withDownloader(configuration: configuration) { server, downloader in
                // Given 40 distinct sources, from the network and from providers
                for index in 0..<20 {
                    server.route("/\(index).png", .ok(Fixtures.png(width: 64, height: 48)))
                }
                let manager = KingfisherManager(downloader: downloader, cache: try makeCache(in: directory))
                let probe = ConcurrencyProbe()
                // When they are all retrieved at once through a processor that records how many run together
                let results = await withTaskGroup(of: Bool.self) { group in
                    for index in 0..<40 {
                        let source: Source =
                            index < 20
                            ? .network(server.url("/\(index).png"))
                            : .provider(
                                RawImageDataProvider(data: Fixtures.png(width: 64, height: 48), cacheKey: "p\(index)"))
                        group.addTask {
                            (try? await manager.retrieveImage(with: source, options: [.processor(probe)])) != nil
                        }
                    }
                    return await group.reduce(into: [Bool]()) { $0.append($1) }
                }
                // Then all succeeded, and no more ran at once than the executor's threads
                #expect(results.allSatisfy { $0 })
                #expect(probe.runs == 40)
                #expect(probe.mostAtOnce >= 1)
                #expect(probe.mostAtOnce <= ImageEngine.Configuration.default.decodeConcurrency)
            }
        }
    }
}

/// A processor that holds each run briefly and records how many overlap.
private final class ConcurrencyProbe: ImageProcessor {
    let identifier = "test.concurrency-probe"
    private let state = Locked((running: 0, most: 0, runs: 0))

    var mostAtOnce: Int { state.withLock { $0.most } }
    var runs: Int { state.withLock { $0.runs } }

    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        state.withLock { state in
            state.running += 1
            state.runs += 1
            state.most = max(state.most, state.running)
        }
        defer { state.withLock { $0.running -= 1 } }
        Thread.sleep(forTimeInterval: 0.02)
        return DefaultImageProcessor.default.process(item: item, options: options)
    }
}

/// Concurrent retrievals of one provider key share one provider load.
@Suite(.timeLimit(.minutes(1)))
struct ProviderLoadSharingTests {
    @Test func fiftyRetrievalsOfOneProviderKeyLoadItOnce() async throws {
        try await withManager { f in
            let provider = HeldCountingProvider(cacheKey: "shared", data: Fixtures.png(width: 30, height: 20))
            let manager = f.manager
            let retrievals = Task {
                await withTaskGroup(of: Int?.self) { group in
                    for _ in 0..<50 {
                        group.addTask { try? await manager.retrieveImage(with: .provider(provider)).image.pixelWidth }
                    }
                    return await group.reduce(into: [Int?]()) { $0.append($1) }
                }
            }
            let joined = await eventually(timeout: 30) { manager.pipeline.providerLoads.waitingCount == 50 }
            #expect(joined)
            provider.release()
            let widths = await retrievals.value
            #expect(widths.count == 50 && widths.allSatisfy { $0 == 30 })
            #expect(provider.loads == 1)
        }
    }
}

/// A provider that counts its loads and holds them until released.
private final class HeldCountingProvider: ImageDataProvider {
    let cacheKey: String
    private let bytes: Data
    private let count = Locked(0)
    private let gate = Gate()

    init(cacheKey: String, data: Data) {
        self.cacheKey = cacheKey
        bytes = data
    }

    var loads: Int { count.withLock { $0 } }

    func release() { gate.open() }

    func data(handler: @escaping @Sendable (Result<Data, any Error>) -> Void) {
        count.withLock { $0 += 1 }
        Task {
            await gate.wait()
            handler(.success(bytes))
        }
    }
}
