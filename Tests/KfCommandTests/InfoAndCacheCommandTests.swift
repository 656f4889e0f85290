import Foundation
import Kingfisher
import Testing

@Suite("kf info and kf cache")
struct InfoAndCacheCommandTests {
    @Test("info reports format, size, frames, bytes and the cache state for the given processing")
    func info() async throws {
        let dir = try TempDir()
        let data = try Samples.coordinatePNG(width: 90, height: 40)
        try data.write(to: dir.url.appendingPathComponent("a.png"))
        let before = try await Kf.run([
            "info", dir.path("a.png"), "--json", "--cache-dir", dir.path("cache"), "--downsample", "20x20",
        ])
        let record = try #require(before.jsonObjects.first)
        #expect(record["format"] as? String == "PNG")
        #expect(record["width"] as? Int == 90 && record["height"] as? Int == 40)
        #expect(record["frames"] as? Int == 1)
        #expect(record["bytes"] as? Int == data.count)
        #expect(record["cacheType"] as? String == "none")
        _ = try await Kf.run(["fetch", dir.path("a.png"), "--cache-dir", dir.path("cache"), "--downsample", "20x20"])
        let after = try await Kf.run([
            "info", dir.path("a.png"), "--json", "--cache-dir", dir.path("cache"), "--downsample", "20x20",
        ])
        #expect(after.jsonObjects.first?["cacheType"] as? String == "disk")
        let text = try await Kf.run(["info", dir.path("a.png"), "--cache-dir", dir.path("cache")])
        #expect(text.stdout.contains("90x40 pixels"))
    }

    @Test("info on something that is not an image fails with one line")
    func infoBadInput() async throws {
        let dir = try TempDir()
        try Data("hello".utf8).write(to: dir.url.appendingPathComponent("a.txt"))
        let run = try await Kf.run(["info", dir.path("a.txt"), "--cache-dir", dir.path("cache")])
        #expect(run.status == 1)
        #expect(run.stderrLines.count == 1)
        #expect(run.stderr.hasPrefix("error: \(dir.path("a.txt")):"))
    }

    @Test("cache info counts files; clean removes expired ones; clear removes everything")
    func cacheLifecycle() async throws {
        let dir = try TempDir()
        for index in 0..<3 {
            try Samples.coordinatePNG(width: 10 + index, height: 10).write(
                to: dir.url.appendingPathComponent("\(index).png"))
        }
        let cache = dir.path("cache")
        _ = try await Kf.run(["fetch"] + (0..<3).map { dir.path("\($0).png") } + ["--cache-dir", cache])
        var info = try await Kf.run(["cache", "info", "--cache-dir", cache, "--json"])
        #expect(info.jsonObjects.first?["files"] as? Int == 3)
        #expect(info.jsonObjects.first?["expiredFiles"] as? Int == 0)
        // Expiry lives in the modification date: move one file's into the past.
        let names = try FileManager.default.contentsOfDirectory(atPath: cache)
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: cache + "/" + names[0])
        info = try await Kf.run(["cache", "info", "--cache-dir", cache, "--json"])
        #expect(info.jsonObjects.first?["expiredFiles"] as? Int == 1)
        let clean = try await Kf.run(["cache", "clean", "--cache-dir", cache])
        #expect(clean.status == 0)
        #expect(clean.stdout.contains("removed 1 expired"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache).count == 2)
        let clear = try await Kf.run(["cache", "clear", "--cache-dir", cache])
        #expect(clear.stdout.contains("removed 2 files"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache).isEmpty)
    }

    @Test("a --cache-dir holding other files is refused, and nothing in it is touched")
    func foreignDirectory() async throws {
        let dir = try TempDir()
        try Data("keep me".utf8).write(to: dir.url.appendingPathComponent("notes.txt"))
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -30 * 86400)], ofItemAtPath: dir.path("notes.txt"))
        for command in [["cache", "clear"], ["cache", "clean"], ["cache", "info"]] {
            let run = try await Kf.run(command + ["--cache-dir", dir.url.path])
            #expect(run.status != 0)
            #expect(run.stderr.contains("not a kf cache file"))
        }
        #expect(FileManager.default.fileExists(atPath: dir.path("notes.txt")))
    }
}
