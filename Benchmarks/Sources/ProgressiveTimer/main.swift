// Time to the final image with and without `.progressiveJPEG`, over loopback, for progressive JPEGs.
// Used by ../../progressive-previews.sh:
//
//   ProgressiveTimer ROUNDS PHOTO...
//
// Serves every photo from an in-process TestHTTPServer twice: at full loopback speed, and paced (64 KB pieces
// 5 ms apart, ~13 MB/s) so that its scans arrive one after another and previews are decoded while it downloads.
// Each round retrieves every photo both ways (`.forceRefresh`, memory cache emptied after each), alternating which
// goes first, and times request to final image. Prints, per delivery, the median per-image time of each side, their
// ratio (with / without) and the previews decoded per image.
import Foundation
import Kingfisher
import KingfisherTestSupport
import Synchronization

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("ProgressiveTimer: \(message)\n".utf8))
    exit(2)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// Holds `onImageUpdated`'s target.
final class PreviewCounter: Sendable {
    let count = Mutex(0)
}

let argv = CommandLine.arguments
guard argv.count >= 3, let rounds = Int(argv[1]), rounds > 0 else { fail("usage: ProgressiveTimer ROUNDS PHOTO...") }
let photos = argv.dropFirst(2).map { URL(fileURLWithPath: $0) }

let server = try await TestHTTPServer.start()
for (index, photo) in photos.enumerated() {
    guard let data = try? Data(contentsOf: photo) else { fail("cannot read \(photo.path)") }
    server.route("/fast/\(index).jpg", .ok(data, contentType: "image/jpeg"))
    server.route(
        "/paced/\(index).jpg",
        TestHTTPServer.Route(
            headers: [("Content-Type", "image/jpeg")], body: data, chunkSize: 64 * 1024,
            delayBetweenChunks: .milliseconds(5), contentLength: Int64(data.count)))
}

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kf-progressive-\(getpid())")
defer { try? FileManager.default.removeItem(at: directory) }
let cache = try ImageCache(name: "progressive-bench", cacheDirectoryURL: directory)
let downloader = ImageDownloader(name: "progressive-bench")
let manager = KingfisherManager(downloader: downloader, cache: cache)
let counter = PreviewCounter()
let progressive = ImageProgressive(isBlur: true, isFastestScan: true, scanInterval: 0)
progressive.onImageUpdated.delegate(on: counter) { counter, _ in
    counter.count.withLock { $0 += 1 }
    return .default
}

/// Seconds from the request to the final image.
func retrieve(_ url: URL, previews: Bool) async throws -> Double {
    var options: KingfisherOptionsInfo = [.forceRefresh, .cacheMemoryOnly]
    if previews { options.append(.progressiveJPEG(progressive)) }
    let start = ContinuousClock.now
    _ = try await manager.retrieveImage(with: url, options: options)
    let elapsed = (ContinuousClock.now - start) / .seconds(1)
    cache.clearMemoryCache()
    return elapsed
}

print("\(photos.count) photos, \(rounds) rounds, load \(ProcessInfo.processInfo.loadAverageText)")
print("| delivery | without previews, ms / image | with previews, ms / image | ratio | previews / image |")
print("|---|---|---|---|---|")
for delivery in ["fast", "paced"] {
    var without: [Double] = []
    var with: [Double] = []
    counter.count.withLock { $0 = 0 }
    for round in 0..<rounds {
        for index in photos.indices {
            let url = server.url("/\(delivery)/\(index).jpg")
            if (round + index) % 2 == 0 {
                without.append(try await retrieve(url, previews: false))
                with.append(try await retrieve(url, previews: true))
            } else {
                with.append(try await retrieve(url, previews: true))
                without.append(try await retrieve(url, previews: false))
            }
        }
    }
    let plain = median(without) * 1000
    let previewing = median(with) * 1000
    let perImage = Double(counter.count.withLock { $0 }) / Double(with.count)
    print(
        "| \(delivery) | \(String(format: "%.1f", plain)) | \(String(format: "%.1f", previewing)) | "
            + "\(String(format: "%.3f", previewing / plain)) | \(String(format: "%.1f", perImage)) |")
}
try await downloader.shutdown()
try await server.shutdown()

extension ProcessInfo {
    var loadAverageText: String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3)
            .joined(separator: " ")
    }
}
