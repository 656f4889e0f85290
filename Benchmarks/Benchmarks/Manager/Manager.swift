import Benchmark
import Foundation
import Kingfisher

/// `KingfisherManager.retrieveImage` (async) when the image is in the memory cache: the call a view or a handler
/// makes for every image it shows again. Three shapes: no options, a processor option, and manager default options
/// plus per-call options (both merged on every call). 1,000 URLs, all in memory; no disk or network is touched.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal], maxDuration: .seconds(3))

    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kf-manager-bench")
    try? FileManager.default.removeItem(at: directory)
    let cache = try! ImageCache(name: "bench", cacheDirectoryURL: directory)
    let manager = KingfisherManager(downloader: ImageDownloader(name: "bench"), cache: cache)
    let withDefaults = KingfisherManager(downloader: manager.downloader, cache: cache)
    withDefaults.defaultOptions = [.callbackQueue(.untouch), .memoryCacheAccessExtendingExpiration(.cacheTime)]

    let image = try! KFCrossPlatformImage(
        rgbaPixels: [UInt8](repeating: 128, count: 16 * 16 * 4), width: 16, height: 16)
    let processor = DownsamplingImageProcessor(size: CGSize(width: 16, height: 16))
    let urls = (0..<1000).map { URL(string: "https://example.com/images/\($0).jpg")! }
    for url in urls {
        cache.memoryStorage.store(value: image, forKey: url.cacheKey)
        cache.memoryStorage.store(
            value: image, forKey: ImageCache.computedKey(forKey: url.cacheKey, processorIdentifier: processor.identifier))
    }

    Benchmark("Memory hit, retrieveImage async, no options") { benchmark in
        for index in benchmark.scaledIterations {
            blackHole(try await manager.retrieveImage(with: urls[index % urls.count]))
        }
    }
    Benchmark("Memory hit, retrieveImage async, [.processor]") { benchmark in
        let options: KingfisherOptionsInfo = [.processor(processor)]
        for index in benchmark.scaledIterations {
            blackHole(try await manager.retrieveImage(with: urls[index % urls.count], options: options))
        }
    }
    Benchmark("Memory hit, retrieveImage async, default options + [.processor]") { benchmark in
        let options: KingfisherOptionsInfo = [.processor(processor)]
        for index in benchmark.scaledIterations {
            blackHole(try await withDefaults.retrieveImage(with: urls[index % urls.count], options: options))
        }
    }
    Benchmark("Memory hit floor, ImageCache.retrieveImageInMemoryCache") { benchmark in
        for index in benchmark.scaledIterations {
            blackHole(cache.retrieveImageInMemoryCache(forKey: urls[index % urls.count].cacheKey))
        }
    }
}
