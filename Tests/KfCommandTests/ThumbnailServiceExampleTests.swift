import Foundation
import Kingfisher
import KingfisherTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The example app (Examples/ThumbnailService) as a user runs it: started on a free port, asked for thumbnails of
/// images on a loopback origin.
@Suite struct ThumbnailServiceExampleTests {
    private static var executable: URL {
        Kf.executable.deletingLastPathComponent().appendingPathComponent("ThumbnailService")
    }

    private func get(_ url: String) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: URL(string: url)!)
        request.timeoutInterval = 60
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(for: request)
        return ((response as! HTTPURLResponse).statusCode, data)
    }

    @Test func answersThumbnailsOfAllowedHostsFromOneDownload() async throws {
        let dir = try TempDir()
        let origin = try await TestHTTPServer.start()
        origin.route("/a.jpg", .ok(try Samples.jpeg(width: 800, height: 400), contentType: "image/jpeg"))
        origin.route("/notes.txt", .ok(Data("not an image".utf8), contentType: "text/plain"))
        origin.route("/gone.jpg", .status(404))
        origin.route("/broken.jpg", .status(500))
        let out = dir.url.appendingPathComponent("out")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = ["--port", "0", "--allow-host", "127.0.0.1", "--cache-dir", dir.path("cache")]
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { process.terminate() }
        var base: String?
        let deadline = Date().addingTimeInterval(60)  // a safety net: the loop ends at the line
        while base == nil, Date() < deadline, process.isRunning {
            let text = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
            if let range = text.range(of: "listening on ") {
                base = String(text[range.upperBound...].prefix { !$0.isNewline })
            } else {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        let service = try #require(base, "the example did not start")
        let image = origin.url("/a.jpg").absoluteString
        for _ in 0..<3 {
            let answer = try await get("\(service)/thumbnail?url=\(image)&size=128")
            #expect(answer.status == 200)
            let thumbnail = try KFCrossPlatformImage(decoding: answer.body)
            #expect(answer.body.kf.imageFormat == .JPEG)
            #expect(thumbnail.pixelWidth == 128 && thumbnail.pixelHeight == 64)
        }
        #expect(origin.hits("/a.jpg") == 1)  // the later ones came from the cache
        #expect(try await get("\(service)/thumbnail?url=\(origin.url("/notes.txt").absoluteString)").status == 422)
        #expect(try await get("\(service)/thumbnail?url=http://localhost:\(origin.port)/a.jpg").status == 403)
        #expect(try await get("\(service)/thumbnail?url=\(image)&size=99999").status == 400)
        // Failures answer a status and plain words, never the library's error text (types, codes, identifiers).
        let refusing = try RefusingPort()
        let closedPort = refusing.port
        let failures: [(url: String, status: Int, words: String)] = [
            (origin.url("/gone.jpg").absoluteString, 404, "the origin has no such image (404)"),
            (origin.url("/broken.jpg").absoluteString, 502, "the origin answered 500"),
            ("http://127.0.0.1:\(closedPort)/a.jpg", 502, "the origin could not be reached"),
            (origin.url("/notes.txt").absoluteString, 422, "the URL is not an image this service can read"),
        ]
        for failure in failures {
            let answer = try await get("\(service)/thumbnail?url=\(failure.url)")
            let body = String(decoding: answer.body, as: UTF8.self)
            #expect(answer.status == failure.status, "\(failure.url): \(body)")
            #expect(body == failure.words + "\n", "\(failure.url)")
        }
        withExtendedLifetime(refusing) {}
        try await origin.shutdown()
    }
}
