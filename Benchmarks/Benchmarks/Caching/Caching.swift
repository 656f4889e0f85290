import Benchmark
import Foundation
import Kingfisher
import Synchronization

/// The cache's hot paths: a memory hit (beside a bare `Mutex<[String: V]>` lookup as the floor), a disk hit of a
/// 256x256 JPEG (read + decode), and an atomic disk store of a ~20 KB thumbnail. Files go to
/// `$TMPDIR/kf-caching-bench`, emptied when the benchmarks start (about 4 MB stays there afterwards).
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .peakMemoryResident], maxDuration: .seconds(3))

    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kf-caching-bench")
    try? FileManager.default.removeItem(at: directory)
    let cache = try! ImageCache(name: "bench", cacheDirectoryURL: directory)
    let image = gradient(width: 256, height: 256)
    let jpeg = try! image.kf.encoded(as: .JPEG, compressionQuality: 0.8)
    let thumbnail = thumbnailData(targetBytes: 20_000)

    let keys = (0..<1000).map { "https://example.com/images/\($0).jpg" }
    for key in keys { cache.memoryStorage.store(value: image, forKey: key) }
    let bare = Mutex<[String: KFCrossPlatformImage]>(Dictionary(uniqueKeysWithValues: keys.map { ($0, image) }))
    try! cache.diskStorage.store(value: jpeg, forKey: "disk-hit")

    Benchmark("Memory hit (MemoryStorage.Backend)") { benchmark in
        for index in benchmark.scaledIterations {
            blackHole(cache.memoryStorage.value(forKey: keys[index % keys.count]))
        }
    }
    Benchmark("Memory hit floor (bare Mutex<[String: V]>)") { benchmark in
        for index in benchmark.scaledIterations {
            let key = keys[index % keys.count]
            blackHole(bare.withLock { $0[key] })
        }
    }
    Benchmark("Memory hit (ImageCache.retrieveImageInMemoryCache)") { benchmark in
        for index in benchmark.scaledIterations {
            blackHole(cache.retrieveImageInMemoryCache(forKey: keys[index % keys.count]))
        }
    }
    Benchmark("Decode 256x256 JPEG, no cache (floor for the disk hit)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(KFCrossPlatformImage(data: jpeg))
        }
    }
    Benchmark("Disk hit 256x256 JPEG (read + decode)") { benchmark in
        for _ in benchmark.scaledIterations {
            cache.retrieveImageInDiskCache(forKey: "disk-hit", options: [.loadDiskFileSynchronously]) { result in
                precondition((try? result.get()) != nil, "disk hit expected")
            }
        }
    }
    // What checking a cache file costs: the digest stored with it (SHA-256 of everything read) against the
    // end-of-data check used for files without one. Same bytes, same read; only the check differs.
    for (label, bytes) in [("~20 KB", thumbnail), ("~580 KB", thumbnailData(targetBytes: 580_000))] {
        try! cache.diskStorage.store(value: bytes, forKey: "digest-\(label)")
        let plain = cache.diskStorage.cacheFileURL(forKey: "plain-\(label)")
        try! bytes.write(to: plain)  // no extended attribute: the end-of-data check decides
        try! FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(86_400)], ofItemAtPath: plain.path)
        for (kind, key) in [("digest checked", "digest-\(label)"), ("end-of-data checked", "plain-\(label)")] {
            Benchmark("Disk read \(label) JPEG bytes, \(kind)") { benchmark in
                for _ in benchmark.scaledIterations {
                    blackHole(try! cache.diskStorage.value(forKey: key, extendingExpiration: .none)!)
                }
            }
        }
    }
    Benchmark("Disk store ~20 KB thumbnail (atomic)") { benchmark in
        for index in benchmark.scaledIterations {
            try! cache.diskStorage.store(value: thumbnail, forKey: "thumb-\(index % 200)")
        }
    }
}

/// A noisy image whose JPEG is about `targetBytes`: a thumbnail as a proxy would store it.
private func thumbnailData(targetBytes: Int) -> Data {
    var side = 64
    while true {
        let data = try! gradient(width: side, height: side, noise: true).kf.encoded(as: .JPEG, compressionQuality: 0.8)
        if data.count >= targetBytes || side >= 1024 { return data }
        side += 16
    }
}

private func gradient(width: Int, height: Int, noise: Bool = false) -> KFCrossPlatformImage {
    var pixels = [UInt8](repeating: 255, count: width * height * 4)
    var state: UInt32 = 2_463_534_242
    for y in 0..<height {
        for x in 0..<width {
            let i = (y * width + x) * 4
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            let jitter = noise ? UInt8(truncatingIfNeeded: state) : 0
            pixels[i] = UInt8(x * 255 / width) &+ jitter / 4
            pixels[i + 1] = UInt8(y * 255 / height) &+ jitter / 8
            pixels[i + 2] = UInt8(truncatingIfNeeded: (x * 31 + y * 17) ^ (x * y))
        }
    }
    return try! KFCrossPlatformImage(rgbaPixels: pixels, width: width, height: height)
}
