import Foundation
import Kingfisher
import KingfisherTestSupport

// Helper for download-vs-curl.sh: `serve`, `compare <base> <rounds>`, `rss <base>`.

/// Deterministic RGB noise (opaque), encoded as PNG: hardly compressible, so the file is about w*h*3 bytes.
func noisePNG(width: Int, height: Int) -> Data {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    var pixels = [UInt8](repeating: 255, count: width * height * 4)
    for index in stride(from: 0, to: pixels.count, by: 4) {
        for channel in 0..<3 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            pixels[index + channel] = UInt8(truncatingIfNeeded: state >> 56)
        }
    }
    let image = try! KFCrossPlatformImage(rgbaPixels: pixels, width: width, height: height)
    return try! image.kf.encoded(as: .PNG)
}

/// Returns a 1x1 image without decoding: measures the transport alone, as curl does.
struct SkipDecoding: ImageProcessor {
    static let placeholder = try! KFCrossPlatformImage(rgbaPixels: [0, 0, 0, 255], width: 1, height: 1)
    let identifier = "bench.skip-decoding"
    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        Self.placeholder
    }
}

func serve() async throws {
    let server = try await TestHTTPServer.start()
    let small = noisePNG(width: 410, height: 410)
    let big = noisePNG(width: 1300, height: 1300)
    for index in 0..<200 {
        server.route("/small/\(index).png", .ok(small, contentType: "image/png"))
        server.route("/big/\(index).png", .ok(big, contentType: "image/png"))
    }
    FileHandle.standardError.write(Data("small body \(small.count) bytes, big body \(big.count) bytes\n".utf8))
    FileHandle.standardOutput.write(Data("PORT \(server.port)\n".utf8))
    while readLine() != nil {}
    try await server.shutdown()
}

func downloadAll(_ urls: [URL], with downloader: ImageDownloader, options: KingfisherOptionsInfo) async throws -> Int {
    try await withThrowingTaskGroup(of: Int.self) { group in
        for url in urls {
            group.addTask { try await downloader.downloadImage(with: url, options: options).originalData.count }
        }
        return try await group.reduce(0, +)
    }
}

func seconds(_ body: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await body()
    let (whole, atto) = (ContinuousClock.now - start).components
    return Double(whole) + Double(atto) / 1e18
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func compare(base: String, rounds: Int) async throws {
    let urls = (0..<200).map { URL(string: "\(base)/small/\($0).png")! }
    let config = FileManager.default.temporaryDirectory.appendingPathComponent("kf-dvc-\(getpid()).curl")
    try urls.map { "url = \"\($0.absoluteString)\"\noutput = \"/dev/null\"\n" }.joined()
        .write(to: config, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: config) }
    let curlArguments = ["curl", "-s", "--no-progress-meter", "--fail", "--parallel", "--parallel-max", "8", "-K", config.path]

    func runCurl() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = curlArguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { fatalError("curl failed with \(process.terminationStatus)") }
    }

    let downloader = ImageDownloader(name: "bench", configuration: .init(maxConcurrentDownloads: 8))
    var bytes = 0
    // Warm-up: connections, libvips, page cache.
    bytes = try await downloadAll(urls, with: downloader, options: [.processor(SkipDecoding())])
    try runCurl()

    var raw: [Double] = []
    var decode: [Double] = []
    var curl: [Double] = []
    for _ in 0..<rounds {
        raw.append(try await seconds { _ = try await downloadAll(urls, with: downloader, options: [.processor(SkipDecoding())]) })
        decode.append(try await seconds { _ = try await downloadAll(urls, with: downloader, options: []) })
        curl.append(try await seconds { try runCurl() })
    }
    try await downloader.shutdown()

    let megabytes = Double(bytes) / 1_000_000
    func line(_ name: String, _ times: [Double]) -> String {
        let m = median(times)
        let formatted = times.map { String(format: "%.3f", $0) }.joined(separator: " ")
        return String(
            format: "%-18@ median %.3f s  %8.1f MB/s  %6.0f img/s  (runs: %@)", name as NSString, m, megabytes / m,
            200 / m, formatted as NSString)
    }
    print("command: \(curlArguments.joined(separator: " "))  (\(bytes) bytes per run)")
    print(line("kingfisher-raw", raw))
    print(line("kingfisher-decode", decode))
    print(line("curl", curl))
    print(String(format: "ratio raw/curl throughput:    %.2fx", median(curl) / median(raw)))
    print(String(format: "ratio decode/curl throughput: %.2fx", median(curl) / median(decode)))
}

func peakRSSMegabytes() -> Double {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
    let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    return kilobytes / 1024
}

func rss(base: String, decode: Bool) async throws {
    let urls = (0..<200).map { URL(string: "\(base)/big/\($0).png")! }
    let options: KingfisherOptionsInfo = decode ? [] : [.processor(SkipDecoding())]
    let before = peakRSSMegabytes()
    let downloader = ImageDownloader(name: "rss", configuration: .init(maxConcurrentDownloads: 8))
    var bytes = 0
    let time = try await seconds { bytes = try await downloadAll(urls, with: downloader, options: options) }
    try await downloader.shutdown()
    print(
        String(
            format: "\(decode ? "decoded" : "transport only"): downloaded %d bodies, %.0f MB in %.2f s; peak RSS %.1f MB (%.1f MB before starting)",
            urls.count, Double(bytes) / 1_000_000, time, peakRSSMegabytes(), before))
}

let arguments = CommandLine.arguments
switch arguments.dropFirst().first {
case "serve": try await serve()
case "compare": try await compare(base: arguments[2], rounds: Int(arguments[3]) ?? 7)
case "rss": try await rss(base: arguments[2], decode: arguments.count < 4 || arguments[3] != "raw")
default: print("usage: DownloadVsCurl serve | compare <base-url> <rounds> | rss <base-url>")
}
