import Foundation
import Kingfisher

#if canImport(Glibc)
    import Glibc
#endif
import KingfisherTestSupport
import Testing

/// What `kf` says when a source fails: the source, what went wrong and what to do, with none of the library's
/// internals (cache keys, processor identifiers, type names, errno dumps).
@Suite("kf error messages")
struct ErrorMessageCommandTests {
    /// Words of the library's own descriptions that a person running kf should never see.
    private static let internals = [
        "kingfisher.local", "com.onevcat", "ImageDownloaderDelegate", "errno", "HTTPClientError", "KingfisherError",
        "cache key", "(error set)",
    ]

    private func expectPlain(_ text: String, sourceLine source: String, says phrase: String) {
        let line = text.split(separator: "\n").first { $0.contains("error: \(source):") }.map(String.init)
        #expect(line != nil, "no error line for \(source) in: \(text)")
        #expect(line?.contains(phrase) == true, "\(line ?? text)")
        for word in Self.internals {
            #expect(line?.contains(word) != true, "\(word) in: \(line ?? "")")
        }
        // Brackets balance, so nothing was cut out of a nested description.
        let opened = (line ?? "").filter { $0 == "(" }.count
        #expect(opened == (line ?? "").filter { $0 == ")" }.count, "\(line ?? "")")
    }

    @Test("a URL without its scheme: no such file, and the URL it probably meant")
    func missingScheme() async throws {
        let dir = try TempDir()
        let run = try await Kf.run(["fetch", "127.0.0.1:8080/a.jpg", "--no-cache"], in: dir.url)
        #expect(run.status != 0)
        expectPlain(
            run.stderr, sourceLine: "127.0.0.1:8080/a.jpg",
            says: "no such file; for a URL, give its scheme: http://127.0.0.1:8080/a.jpg")
        // A plain missing file gets no such guess.
        let missing = try await Kf.run(["fetch", "missing.jpg", "--no-cache"], in: dir.url)
        expectPlain(missing.stderr, sourceLine: "missing.jpg", says: "no such file")
        #expect(!missing.stderr.contains("http://"))
    }

    @Test("a text file, a closed port and a 404 each say what happened")
    func notAnImageClosedPortAndNotFound() async throws {
        let dir = try TempDir()
        try Data("hello, not an image\n".utf8).write(to: dir.url.appendingPathComponent("notes.txt"))
        let server = try await TestHTTPServer.start()
        let missing = server.url("/missing.jpg").absoluteString
        // A port bound but not listening: connections to it are refused, and no other test can take it meanwhile.
        let refusing = try RefusingPort()
        let port = refusing.port
        let closedURL = "http://127.0.0.1:\(port)/a.jpg"
        let run = try await Kf.run([
            "fetch", dir.path("notes.txt"), missing, closedURL, "--downsample", "64x64", "--no-cache",
        ])
        #expect(run.status != 0)
        expectPlain(run.stderr, sourceLine: dir.path("notes.txt"), says: "it is not an image")
        expectPlain(run.stderr, sourceLine: missing, says: "the server answered 404 Not Found (check the URL)")
        expectPlain(
            run.stderr, sourceLine: closedURL,
            says: "could not connect to 127.0.0.1:\(port): the connection was refused (is the server running?)")
        withExtendedLifetime(refusing) {}
        try await server.shutdown()
    }

    @Test("a run where nothing completed reports no images-per-second rate")
    func summaryWithoutCompletions() async throws {
        let dir = try TempDir()
        let run = try await Kf.run(["fetch", dir.path("nothing.jpg"), "--no-cache"])
        #expect(run.stderr.contains("0 completed, 0 skipped, 1 failed in "), "\(run.stderr)")
        #expect(!run.stderr.contains("images/s"), "\(run.stderr)")
        let image = dir.url.appendingPathComponent("a.png")
        try Samples.coordinatePNG(width: 20, height: 20).write(to: image)
        let done = try await Kf.run(["fetch", image.path, "--no-cache"])
        #expect(done.stderr.contains("images/s"), "\(done.stderr)")
    }

    @Test("an unknown option is named as such, even with -o")
    func unknownOptionWithOutputFile() async throws {
        let dir = try TempDir()
        let run = try await Kf.run(["fetch", "a.jpg", "--size", "300x200", "-o", dir.path("x.jpg")])
        #expect(run.status != 0)
        #expect(run.stderr.contains("Unknown option '--size'"), "\(run.stderr)")
        #expect(!run.stderr.contains("takes one SOURCE"), "\(run.stderr)")
        // Two real sources with -o are still refused as such.
        let two = try await Kf.run(["fetch", "a.jpg", "b.jpg", "-o", dir.path("x.jpg")])
        #expect(two.status != 0)
        #expect(two.stderr.contains("-o FILE takes one SOURCE"), "\(two.stderr)")
    }

    @Test("kf view -o draws a failed source's error into its cell")
    func viewSheetShowsTheError() async throws {
        let dir = try TempDir()
        let good = dir.url.appendingPathComponent("good.png")
        try Samples.coordinatePNG(width: 120, height: 90).write(to: good)
        let sheet = dir.path("sheet.png")
        let run = try await Kf.run([
            "view", good.path, dir.path("gone.jpg"), "-o", sheet, "--cache-dir", dir.path("cache"),
        ])
        #expect(run.status != 0)  // one source failed
        expectPlain(run.stderr, sourceLine: dir.path("gone.jpg"), says: "no such file")
        let image = try KFCrossPlatformImage(decoding: Data(contentsOf: URL(fileURLWithPath: sheet)))
        // The failed cell's pale red box is drawn: a good part of a 248 x 188 box of (251, 233, 231).
        let pixels = image.kf.rgbaPixels()
        var boxPixels = 0
        for index in stride(from: 0, to: pixels.count, by: 4)
        where abs(Int(pixels[index]) - 251) < 4 && abs(Int(pixels[index + 1]) - 233) < 4
            && abs(Int(pixels[index + 2]) - 231) < 4
        {
            boxPixels += 1
        }
        #expect(boxPixels > 20_000, "\(boxPixels) pixels of the error box")
    }
}
