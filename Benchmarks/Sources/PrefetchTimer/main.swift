// Prefetches a list of URLs with ImagePrefetcher into a fresh temp-dir disk cache, each downsampled to fit
// size x size and stored as JPEG at the given quality, and prints one JSON line:
//   {"images":200,"seconds":5.1,"images_per_s":39.2,"failed":0}
// Used by ../../prefetch-vs-aiohttp.sh; the Python anchor (../../anchors/aiohttp_pillow.py) takes the same flags.
//
//   PrefetchTimer --url-file F --out DIR [--size 256] [--quality 80] [--concurrency 5]
import Foundation
import Kingfisher

struct Arguments {
    var urlFile = ""
    var out = ""
    var size = 256
    var quality = 80
    var concurrency = 5

    init(_ argv: [String]) {
        var rest = argv.dropFirst()
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { fail("\(flag) needs a value") }
            switch flag {
            case "--url-file": urlFile = value
            case "--out": out = value
            case "--size": size = Int(value) ?? size
            case "--quality": quality = Int(value) ?? quality
            case "--concurrency": concurrency = Int(value) ?? concurrency
            default: fail("unknown flag \(flag)")
            }
        }
        if urlFile.isEmpty || out.isEmpty { fail("--url-file and --out are required") }
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("PrefetchTimer: \(message)\n".utf8))
    exit(2)
}

let arguments = Arguments(CommandLine.arguments)
let text = (try? String(contentsOfFile: arguments.urlFile, encoding: .utf8)) ?? ""
let urls = text.split(whereSeparator: \.isNewline).compactMap { URL(string: String($0)) }
guard !urls.isEmpty else { fail("no URLs in \(arguments.urlFile)") }

let directory = URL(fileURLWithPath: arguments.out, isDirectory: true)
    .appendingPathComponent("kf-\(UUID().uuidString)", isDirectory: true)
let cache = try ImageCache(name: "prefetch", cacheDirectoryURL: directory)
let manager = KingfisherManager(downloader: ImageDownloader(name: "prefetch"), cache: cache)
var serializer = DefaultCacheSerializer.default
serializer.compressionQuality = CGFloat(arguments.quality) / 100
let side = CGFloat(arguments.size)
let options: KingfisherOptionsInfo = [
    .processor(DownsamplingImageProcessor(size: CGSize(width: side, height: side))),
    .cacheSerializer(serializer),
    .waitForCache,
]

let started = ContinuousClock.now
let outcome = await withCheckedContinuation { continuation in
    let prefetcher = ImagePrefetcher(
        urls: urls, options: options,
        completionHandler: { skipped, failed, completed in
            continuation.resume(returning: (skipped.count, failed.count, completed.count))
        }, manager: manager)
    prefetcher.maxConcurrentDownloads = arguments.concurrency
    prefetcher.start()
}
let seconds = (ContinuousClock.now - started) / .seconds(1)
let written = (try? FileManager.default.contentsOfDirectory(atPath: cache.diskStorage.directoryURL.path))?
    .filter { !$0.hasPrefix(".") }.count ?? 0
print(
    "{\"images\":\(outcome.2),\"seconds\":\(seconds),\"images_per_s\":\(Double(outcome.2) / seconds),"
        + "\"failed\":\(outcome.1),\"skipped\":\(outcome.0),\"files\":\(written)}")
try? FileManager.default.removeItem(at: directory)
exit(outcome.1 == 0 && written == urls.count ? 0 : 1)
