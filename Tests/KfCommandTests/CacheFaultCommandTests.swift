import Foundation
import Kingfisher
import KingfisherLocking
import KingfisherTestSupport
import Testing

/// `kf` against a damaged, unwritable or odd cache directory, and interrupted runs.
@Suite("kf and cache faults")
struct CacheFaultCommandTests {
    /// Cuts every cache file in `directory` with `change`, keeping its modification date (its expiration).
    private func damageCacheFiles(in directory: URL, _ change: (Data) -> Data) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            let url = directory.appendingPathComponent(name)
            let expires = try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as! Date
            try change(try Data(contentsOf: url)).write(to: url)
            try FileManager.default.setAttributes([.modificationDate: expires], ofItemAtPath: url.path)
        }
    }

    @Test(
        "a cache file cut short, missing its tail or holding garbage is fetched again, never served",
        arguments: ["half", "tail", "garbage"])
    func damagedEntriesAreRefetched(_ damage: String) async throws {
        let server = try await TestHTTPServer.start()
        let dir = try TempDir()
        let jpeg = try Samples.jpeg(width: 120, height: 80)
        server.route("/a.jpg", .ok(jpeg, contentType: "image/jpeg"))
        let url = server.url("/a.jpg").absoluteString
        try Data((url + "\n").utf8).write(to: dir.url.appendingPathComponent("urls.txt"))
        let prefetch = ["prefetch", "--url-file", dir.path("urls.txt"), "--cache-dir", dir.path("cache")]
        #expect(try await Kf.run(prefetch).status == 0)
        try damageCacheFiles(in: dir.url.appendingPathComponent("cache")) { data in
            switch damage {
            case "half": data.prefix(data.count / 2)
            case "tail": data.dropLast(2)
            default: data.prefix(100) + Data(repeating: 0x41, count: data.count - 100)
            }
        }
        // A prefetch does not count the damaged file as cached: it loads it again
        let again = try await Kf.run(prefetch)
        #expect(again.stderr.contains("1 completed, 0 skipped, 0 failed"), "\(again.stderr)")
        #expect(server.hits("/a.jpg") == 2)
        try damageCacheFiles(in: dir.url.appendingPathComponent("cache")) { $0.prefix($0.count / 2) }
        // A fetch does not serve it either
        let fetch = try await Kf.run([
            "fetch", url, "--cache-dir", dir.path("cache"), "-o", dir.path("out.jpg"), "--json",
        ])
        #expect(fetch.status == 0, "\(fetch.stderr)")
        #expect(fetch.jsonObjects.first?["cacheType"] as? String == "none")
        // The whole image, decoded without a warning's worth of damage
        let output = try KFCrossPlatformImage(decoding: Data(contentsOf: dir.url.appendingPathComponent("out.jpg")))
        #expect(output.pixelWidth == 120 && output.pixelHeight == 80)
        #expect(server.hits("/a.jpg") == 3)
    }

    @Test(
        "a read-only cache directory: the images are not stored, kf says why once and exits 1",
        .enabled(if: TmpfsMount.isAvailable, "needs root and tmpfs mounts"))
    func readOnlyCacheDirectory() async throws {
        let server = try await TestHTTPServer.start()
        let dir = try TempDir()
        let mount = try TmpfsMount(at: dir.url.appendingPathComponent("cache"), options: "size=1m")
        defer { mount.unmount() }
        try mount.remount(options: "remount,ro")
        var lines: [String] = []
        for index in 0..<5 {
            // Cacheable responses get an HTTP record beside the image: its failed write is not one more image.
            let png = try Samples.coordinatePNG(width: 32, height: 32)
            server.route(
                "/\(index).png", index.isMultiple(of: 2) ? .ok(png) : .cacheable(png, contentType: "image/png"))
            lines.append(server.url("/\(index).png").absoluteString)
        }
        try Data(lines.joined(separator: "\n").utf8).write(to: dir.url.appendingPathComponent("urls.txt"))
        let prefetch = try await Kf.run([
            "prefetch", "--url-file", dir.path("urls.txt"), "--cache-dir", mount.url.path,
        ])
        #expect(prefetch.status == 1)
        #expect(prefetch.stderr.contains("0 completed, 0 skipped, 5 failed"), "\(prefetch.stderr)")
        let reasons = prefetch.stderrLines.filter { $0.hasPrefix("error:") }
        #expect(reasons.count == 1, "\(prefetch.stderr)")
        #expect(reasons.first?.contains("5 images were not stored") == true)
        #expect(reasons.first?.contains("Read-only file system") == true)

        let fetch = try await Kf.run([
            "fetch", lines[0], "--cache-dir", mount.url.path, "-o", dir.path("out.png"), "--json",
        ])
        #expect(fetch.status == 1)
        #expect(FileManager.default.fileExists(atPath: dir.path("out.png")))  // the result itself is fine
        #expect((fetch.jsonObjects.first?["cacheError"] as? String)?.contains("Read-only") == true)
        #expect(fetch.stderrLines.filter { $0.hasPrefix("error:") }.count == 1, "\(fetch.stderr)")
    }

    @Test("--format is kept on a cache hit: each format has its own cache entry")
    func formatOnCacheHit() async throws {
        let server = try await TestHTTPServer.start()
        let dir = try TempDir()
        server.route("/a.jpg", .cacheable(try Samples.jpeg(width: 64, height: 64), contentType: "image/jpeg"))
        let url = server.url("/a.jpg").absoluteString
        let cache = ["--cache-dir", dir.path("cache")]
        for (format, file, expected) in [
            ("png", "a.png", ImageFormat.PNG), ("jpeg", "b.jpg", .JPEG), ("png", "c.png", .PNG),
            ("original", "d.img", .JPEG), ("webp", "e.webp", .WebP),
        ] {
            let run = try await Kf.run(["fetch", url, "--format", format, "-o", dir.path(file)] + cache)
            #expect(run.status == 0, "\(run.stderr)")
            let output = try Data(contentsOf: dir.url.appendingPathComponent(file))
            #expect(output.kf.imageFormat == expected, "--format \(format)")
        }
        // After a prefetch in the source's format, a fetch asking for PNG gets PNG
        try Data(url.utf8).write(to: dir.url.appendingPathComponent("urls.txt"))
        let other = ["--cache-dir", dir.path("cache2")]
        #expect(try await Kf.run(["prefetch", "--url-file", dir.path("urls.txt")] + other).status == 0)
        #expect(try await Kf.run(["fetch", url, "--format", "png", "-o", dir.path("f.png")] + other).status == 0)
        #expect(try Data(contentsOf: dir.url.appendingPathComponent("f.png")).kf.imageFormat == .PNG)
        // The same format and quality is a hit
        let hit = try await Kf.run(["fetch", url, "--format", "png", "--json"] + cache)
        #expect(hit.jsonObjects.first?["cacheType"] as? String == "disk")
    }

    @Test("kf cache clear refuses a directory holding a sub-folder before deleting anything")
    func clearRefusesSubfolders() async throws {
        let dir = try TempDir()
        let cache = dir.url.appendingPathComponent("cache")
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        let file = cache.appendingPathComponent(String(repeating: "0", count: 64))
        try Data([1, 2, 3]).write(to: file)
        try FileManager.default.createDirectory(
            at: cache.appendingPathComponent(String(repeating: "f", count: 64)), withIntermediateDirectories: false)
        let run = try await Kf.run(["cache", "clear", "--cache-dir", cache.path])
        #expect(run.status != 0)
        #expect(run.stderr.contains("not a kf cache file"), "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: file.path))
    }

    @Test("kf cache info counts the temporary files of writes a killed process left")
    func infoCountsTemporaries() async throws {
        let dir = try TempDir()
        let cache = dir.url.appendingPathComponent("cache")
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        // A write of a live process on another host: nothing may remove it yet
        try Data(repeating: 7, count: 2048).write(to: cache.appendingPathComponent(".kf-tmp-elsewhere-1-X"))
        let run = try await Kf.run(["cache", "info", "--cache-dir", cache.path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try #require(run.jsonObjects.first)
        #expect(report["temporaryFiles"] as? Int == 1)
        #expect(report["temporaryBytes"] as? Int == 2048)
    }

    @Test("SIGTERM during a --no-cache fetch leaves nothing in the temporary directory")
    func noCacheLeavesNothing() async throws {
        let server = try await TestHTTPServer.start()
        let dir = try TempDir()
        let tmp = dir.url.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        // The signal goes as the request arrives, from the server's event loop: a test task resumed late on a busy
        // machine could otherwise send it after kf had given up on the held answer by itself.
        let held = TestHTTPServer.Route(body: try Samples.coordinatePNG(width: 8, height: 8), held: true)
        let fetcher = Locked<pid_t>(0)
        server.route("/slow.png") { _ in
            let pid = fetcher.withLock { $0 }
            if pid > 0 { kill(pid, SIGTERM) }
            return held
        }
        let process = Process()
        process.executableURL = Kf.executable
        process.arguments = ["fetch", server.url("/slow.png").absoluteString, "--no-cache"]
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = tmp.path
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        fetcher.withLock { $0 = process.processIdentifier }
        await server.waitForRequests("/slow.png")
        if process.isRunning { process.terminate() }  // (in case the request came before its pid was known)
        process.waitUntilExit()
        server.release("/slow.png")
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGTERM)
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.path).isEmpty)
    }
}
