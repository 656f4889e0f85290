import Benchmark
import Foundation
import Kingfisher
import KingfisherTestSupport
import Synchronization

/// ImageDownloader over loopback against KingfisherTestSupport's server, started once per benchmark.
/// The side-by-side comparison with curl is ../../download-vs-curl.sh.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .peakMemoryResident], maxDuration: .seconds(10), maxIterations: 20)

    Benchmark(
        "Download 200 x 500 KB PNG, 8 at once, transport only",
        closure: { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try await fixture.downloadAll(prefix: "/small", options: [.processor(SkipDecoding())]))
            }
        }, setup: { try await fixture.start() }, teardown: { try await fixture.stop() })

    Benchmark(
        "Download 200 x 500 KB PNG, 8 at once, decoded",
        closure: { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try await fixture.downloadAll(prefix: "/small", options: []))
            }
        }, setup: { try await fixture.start() }, teardown: { try await fixture.stop() })

    Benchmark(
        "100 concurrent requests for one URL (1 server hit)",
        closure: { benchmark in
            for _ in benchmark.scaledIterations {
                try await fixture.coalesced(count: 100)
            }
        }, setup: { try await fixture.start() }, teardown: { try await fixture.stop() })

    Benchmark(
        "Download 200 x 5 MB PNG, 8 at once, decoded",
        configuration: .init(
            metrics: [.wallClock, .peakMemoryResident], maxDuration: .seconds(20), maxIterations: 3),
        closure: { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try await fixture.downloadAll(prefix: "/big", options: []))
            }
        }, setup: { try await fixture.start() }, teardown: { try await fixture.stop() })
}

let fixture = LoopbackFixture()

/// A server with 200 small and 200 big noise PNGs, and a downloader running 8 downloads at once.
final class LoopbackFixture: Sendable {
    private let state = Mutex<(server: TestHTTPServer?, downloader: ImageDownloader?)>((nil, nil))
    private let small = noisePNG(width: 410, height: 410)
    private let big = noisePNG(width: 1300, height: 1300)

    func start() async throws {
        let server = try await TestHTTPServer.start()
        for index in 0..<200 {
            server.route("/small/\(index).png", .ok(small, contentType: "image/png"))
            server.route("/big/\(index).png", .ok(big, contentType: "image/png"))
        }
        server.route("/one.png", .ok(small, contentType: "image/png"))
        let downloader = ImageDownloader(name: "bench", configuration: .init(maxConcurrentDownloads: 8))
        state.withLock { $0 = (server, downloader) }
    }

    func stop() async throws {
        let (server, downloader) = state.withLock { state in
            defer { state = (nil, nil) }
            return state
        }
        try await downloader?.shutdown()
        try await server?.shutdown()
    }

    func downloadAll(prefix: String, options: KingfisherOptionsInfo) async throws -> Int {
        let (server, downloader) = state.withLock { ($0.server!, $0.downloader!) }
        return try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<200 {
                let url = server.url("\(prefix)/\(index).png")
                group.addTask { try await downloader.downloadImage(with: url, options: options).originalData.count }
            }
            return try await group.reduce(0, +)
        }
    }

    func coalesced(count: Int) async throws {
        let (server, downloader) = state.withLock { ($0.server!, $0.downloader!) }
        let before = server.hits("/one.png")
        let url = server.url("/one.png")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<count {
                group.addTask { _ = try await downloader.downloadImage(with: url, options: [.processor(SkipDecoding())]) }
            }
            try await group.waitForAll()
        }
        let hits = server.hits("/one.png") - before
        precondition(hits >= 1 && hits <= 2, "coalescing broke: \(hits) hits for \(count) requests")
    }
}

/// Returns a 1x1 image without decoding: the transport alone.
struct SkipDecoding: ImageProcessor {
    static let placeholder = try! KFCrossPlatformImage(rgbaPixels: [0, 0, 0, 255], width: 1, height: 1)
    let identifier = "bench.skip-decoding"
    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        Self.placeholder
    }
}

/// Opaque RGB noise as PNG: hardly compressible, so the file is about width x height x 3 bytes.
func noisePNG(width: Int, height: Int) -> Data {
    var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
    var pixels = [UInt8](repeating: 255, count: width * height * 4)
    for index in stride(from: 0, to: pixels.count, by: 4) {
        for channel in 0..<3 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            pixels[index + channel] = UInt8(truncatingIfNeeded: seed >> 56)
        }
    }
    return try! KFCrossPlatformImage(rgbaPixels: pixels, width: width, height: height).kf.encoded(as: .PNG)
}
