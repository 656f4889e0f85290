// Revalidation inside a running process, as a server keeps its cache: retrieves a list of URLs once (downloaded,
// downsampled to 256, cached, with the origin's HTTP record), then times rounds in which every record is stale
// (the origin sends `max-age=0` with an `ETag`) and each retrieval is a conditional request answered `304`,
// served from the memory cache; and, for scale, rounds with `.forceRefresh` (downloaded, decoded and downsampled
// again). Prints one JSON line with the median round of each, in seconds:
//   {"urls":120,"revalidate_s":0.011,"refetch_s":0.95,"revalidated":120}
// Used by ../../revalidate-vs-curl.sh.
//
//   RevalidateTimer --url-file F --out DIR [--rounds 7] [--concurrency 8] [--refetch no]
import Foundation
import Kingfisher

struct Arguments {
    var urlFile = ""
    var out = ""
    var rounds = 7
    var concurrency = 8
    var refetch = true

    init(_ argv: [String]) {
        var rest = argv.dropFirst()
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { fail("\(flag) needs a value") }
            switch flag {
            case "--url-file": urlFile = value
            case "--out": out = value
            case "--rounds": rounds = Int(value) ?? rounds
            case "--concurrency": concurrency = Int(value) ?? concurrency
            case "--refetch": refetch = value != "no"
            default: fail("unknown flag \(flag)")
            }
        }
        if urlFile.isEmpty || out.isEmpty { fail("--url-file and --out are required") }
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("RevalidateTimer: \(message)\n".utf8))
    exit(2)
}

let arguments = Arguments(CommandLine.arguments)
let text = (try? String(contentsOfFile: arguments.urlFile, encoding: .utf8)) ?? ""
let urls = text.split(whereSeparator: \.isNewline).compactMap { URL(string: String($0)) }
guard !urls.isEmpty else { fail("no URLs in \(arguments.urlFile)") }

let directory = URL(fileURLWithPath: arguments.out, isDirectory: true)
    .appendingPathComponent("kf-\(UUID().uuidString)", isDirectory: true)
let cache = try ImageCache(name: "revalidate", cacheDirectoryURL: directory)
let manager = KingfisherManager(downloader: ImageDownloader(name: "revalidate"), cache: cache)
manager.httpCachePolicy = .followsResponseHeaders
let options: KingfisherOptionsInfo = [
    .processor(DownsamplingImageProcessor(size: CGSize(width: 256, height: 256))), .waitForCache,
]

/// Retrieves every URL, `concurrency` at a time; returns the validations seen and the wall time.
func round(_ extra: KingfisherOptionsInfo) async -> (validations: [String: Int], seconds: Double) {
    let started = ContinuousClock.now
    var counts: [String: Int] = [:]
    await withTaskGroup(of: String.self) { group in
        var next = urls.makeIterator()
        func addOne() -> Bool {
            guard let url = next.next() else { return false }
            group.addTask {
                do {
                    return try await manager.retrieveImage(with: url, options: options + extra).validation?.name
                        ?? "none"
                } catch {
                    return "error"
                }
            }
            return true
        }
        for _ in 0..<arguments.concurrency where !addOne() { break }
        while let name = await group.next() {
            counts[name, default: 0] += 1
            _ = addOne()
        }
    }
    return (counts, (ContinuousClock.now - started) / .seconds(1))
}

func median(_ values: [Double]) -> Double { values.isEmpty ? 0 : values.sorted()[values.count / 2] }

_ = await round([])  // warm: every URL downloaded, downsampled and cached with its record
var revalidations: [Double] = []
var refetches: [Double] = []
var seen: [String: Int] = [:]
for _ in 0..<arguments.rounds {
    let revalidated = await round([])
    seen = revalidated.validations
    revalidations.append(revalidated.seconds)
    if arguments.refetch { refetches.append(await round([.forceRefresh]).seconds) }
}
print(
    "{\"urls\":\(urls.count),\"revalidate_s\":\(median(revalidations)),\"refetch_s\":\(median(refetches)),"
        + "\"revalidated\":\(seen["revalidated", default: 0])}")
try? FileManager.default.removeItem(at: directory)
exit(seen["revalidated", default: 0] == urls.count ? 0 : 1)
