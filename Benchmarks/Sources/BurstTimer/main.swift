// A burst of concurrent retrievals: every URL of a list retrieved `--per-url` times at once through one
// KingfisherManager, downsampled to fit `--size`, memory cache only. Prints one JSON line with the time, the
// retrievals that failed, the peak resident size of the process (VmHWM) and its thread count at the end:
//   {"retrievals":1000,"urls":50,"seconds":3.2,"failed":0,"peak_rss_mb":210.4,"threads":14,"cores":2}
// Used by ../../burst.sh.
//
//   BurstTimer --url-file F [--per-url 20] [--size 256]
import Foundation
import Kingfisher

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("BurstTimer: \(message)\n".utf8))
    exit(2)
}

var urlFile = ""
var perURL = 20
var size = 256
var rest = CommandLine.arguments.dropFirst()
while let flag = rest.popFirst() {
    guard let value = rest.popFirst() else { fail("\(flag) needs a value") }
    switch flag {
    case "--url-file": urlFile = value
    case "--per-url": perURL = Int(value) ?? perURL
    case "--size": size = Int(value) ?? size
    default: fail("unknown flag \(flag)")
    }
}
let text = (try? String(contentsOfFile: urlFile, encoding: .utf8)) ?? ""
let urls = text.split(whereSeparator: \.isNewline).compactMap { URL(string: String($0)) }
guard !urls.isEmpty else { fail("no URLs in \(urlFile)") }

/// A value of /proc/self/status, in kB.
func status(_ field: String) -> Double {
    let text = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
        return Double(line.split(separator: " ").dropFirst().first.map(String.init) ?? "") ?? 0
    }
    return 0
}

ImageEngine.keepLargeAllocationsOutOfHeap()
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kf-burst-\(getpid())")
defer { try? FileManager.default.removeItem(at: directory) }
let cache = try ImageCache(name: "burst", cacheDirectoryURL: directory)
let downloader = ImageDownloader(name: "burst", configuration: .init(maxConcurrentDownloads: 8))
let manager = KingfisherManager(downloader: downloader, cache: cache)
let options: KingfisherOptionsInfo = [
    .processor(DownsamplingImageProcessor(size: CGSize(width: size, height: size))), .cacheMemoryOnly,
]

let started = ContinuousClock.now
let failed = await withTaskGroup(of: Bool.self) { group in
    for _ in 0..<perURL {
        for url in urls {
            group.addTask { (try? await manager.retrieveImage(with: url, options: options)) == nil }
        }
    }
    var failures = 0
    for await failedOne in group where failedOne { failures += 1 }
    return failures
}
let seconds = (ContinuousClock.now - started) / .seconds(1)
let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
let line = String(
    format: "{\"retrievals\":%d,\"urls\":%d,\"seconds\":%.3f,\"failed\":%d,\"peak_rss_mb\":%.1f,\"threads\":%d,\"cores\":%d}",
    perURL * urls.count, urls.count, seconds, failed, status("VmHWM") / 1024, threads,
    ProcessInfo.processInfo.activeProcessorCount)
print(line)
try? await downloader.shutdown()
