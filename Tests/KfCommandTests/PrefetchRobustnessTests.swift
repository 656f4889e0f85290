import Foundation
import Kingfisher
import KingfisherLocking
import KingfisherTestSupport
import Testing

/// Prefetches killed mid-run and prefetches racing on one directory: nothing half-written is ever served, and
/// concurrent writers produce the same files one writer would.
@Suite("kf prefetch under kill -9 and concurrency")
struct PrefetchRobustnessTests {
    /// A server with `count` distinct PNGs of about 100 KB each (noise compresses badly), and a URL file for them.
    private func serveImages(count: Int, in dir: TempDir, delay: Duration? = nil) async throws -> (
        TestHTTPServer, [String]
    ) {
        let server = try await TestHTTPServer.start()
        var urls: [String] = []
        for index in 0..<count {
            var pixels = [UInt8](repeating: 255, count: 180 * 180 * 4)
            var state = UInt32(index * 7919 + 1)
            for offset in stride(from: 0, to: pixels.count, by: 4) {
                state = state &* 1_664_525 &+ 1_013_904_223
                pixels[offset] = UInt8(truncatingIfNeeded: state >> 24)
                pixels[offset + 1] = UInt8(truncatingIfNeeded: state >> 16)
                pixels[offset + 2] = UInt8(truncatingIfNeeded: state >> 8)
            }
            let png = try KFCrossPlatformImage(rgbaPixels: pixels, width: 180, height: 180).kf.encoded(as: .PNG)
            var route = TestHTTPServer.Route.cacheable(png, contentType: "image/png")
            route.delayBeforeHead = delay
            server.route("/\(index).png", route)
            urls.append(server.url("/\(index).png").absoluteString)
        }
        try Data(urls.joined(separator: "\n").utf8).write(to: dir.url.appendingPathComponent("urls.txt"))
        return (server, urls)
    }

    /// Starts `kf arguments...` without waiting for it.
    private func start(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = Kf.executable
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    private func waitForExit(_ process: Process) async {
        await withSanitizedCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                process.waitUntilExit()
                continuation.resume()
            }
        }
    }

    @Test("8 prefetches killed with SIGKILL at different points, then one that finishes: every entry is whole")
    func killedPrefetches() async throws {
        let dir = try TempDir()
        let (_, urls) = try await serveImages(count: 24, in: dir, delay: .milliseconds(5))
        let arguments = [
            "prefetch", "--url-file", dir.path("urls.txt"), "--cache-dir", dir.path("cache"), "--format", "png",
            "--resize", "150x150", "--concurrency", "4",
        ]
        for round in 0..<8 {
            let process = try start(arguments)
            // Killed at a different point each round (start-up, downloads, decodes, writes); a timer rather than
            // a request count, because a round may find nothing left to download and never send one.
            try await Task.sleep(for: .milliseconds(60 + 45 * round))
            kill(process.processIdentifier, SIGKILL)
            await waitForExit(process)
        }
        let last = try await Kf.run(arguments)
        #expect(last.status == 0, "\(last.stderr)")
        // Every source is served from the disk cache, whole
        let outputs = dir.url.appendingPathComponent("out")
        let fetch = try await Kf.run(
            ["fetch"] + urls + [
                "--cache-dir", dir.path("cache"), "--format", "png", "--resize", "150x150", "--json", "--output",
                outputs.path,
            ])
        #expect(fetch.status == 0, "\(fetch.stderr)")
        let records = fetch.jsonObjects
        #expect(records.count == urls.count)
        #expect(records.allSatisfy { $0["cacheType"] as? String == "disk" }, "\(fetch.stdout)")
        for record in records {
            let path = try #require(record["output"] as? String)
            let image = try KFCrossPlatformImage(decoding: Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(image.pixelWidth == 150 && image.pixelHeight == 150)
        }
    }

    @Test("3 prefetches at once on one directory write the same files, byte for byte, as one alone")
    func concurrentPrefetches() async throws {
        let dir = try TempDir()
        let (_, _) = try await serveImages(count: 16, in: dir)
        let flags = ["--url-file", dir.path("urls.txt"), "--downsample", "64x64", "--format", "jpeg"]
        let alone = try await Kf.run(["prefetch"] + flags + ["--cache-dir", dir.path("alone")])
        #expect(alone.status == 0, "\(alone.stderr)")
        let processes = try (0..<3).map { _ in try start(["prefetch"] + flags + ["--cache-dir", dir.path("shared")]) }
        for process in processes {
            await waitForExit(process)
            #expect(process.terminationStatus == 0)
        }
        let expected = try FileManager.default.contentsOfDirectory(atPath: dir.path("alone")).sorted()
        let shared = try FileManager.default.contentsOfDirectory(atPath: dir.path("shared")).sorted()
        // 16 images and their 16 HTTP cache records; the records hold the times of their responses, so only the
        // images can be the same byte for byte
        #expect(expected.count == 32)
        #expect(shared == expected)
        for name in expected where !name.hasSuffix(".http") {
            let one = try Data(contentsOf: dir.url.appendingPathComponent("alone/\(name)"))
            let raced = try Data(contentsOf: dir.url.appendingPathComponent("shared/\(name)"))
            #expect(one == raced, "\(name)")
        }
    }
}
