import Foundation
import Kingfisher
import KingfisherLocking
import KingfisherTestSupport
import Testing

@Suite("kf and the servers' caching headers")
struct ValidationCommandTests {
    @Test("fetch prints how each image was validated; cache info counts fresh and stale sources")
    func validationField() async throws {
        let server = try await TestHTTPServer.start()
        let dir = try TempDir()
        let body = try Samples.coordinatePNG(width: 40, height: 30)
        let notModified = Locked(0)
        // An origin that answers If-None-Match with a 304 and says its image is stale at once
        server.route("/v.png") { headers in
            let fields = [("ETag", #""v1""#), ("Cache-Control", "max-age=0"), ("Content-Type", "image/png")]
            if headers.contains(where: { $0.0.lowercased() == "if-none-match" && $0.1 == #""v1""# }) {
                notModified.withLock { $0 += 1 }
                return TestHTTPServer.Route(status: 304, headers: fields)
            }
            return TestHTTPServer.Route(headers: fields, body: body)
        }
        server.route("/f.png", .cacheable(body, contentType: "image/png"))
        let cache = ["--cache-dir", dir.path("cache")]
        let arguments = ["fetch", server.url("/v.png").absoluteString, server.url("/f.png").absoluteString, "--json"]
        let first = try await Kf.run(arguments + cache)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(Set(first.jsonObjects.compactMap { $0["validation"] as? String }) == ["fetched"])
        let second = try await Kf.run(arguments + cache)
        let validations = Dictionary(
            uniqueKeysWithValues: second.jsonObjects.compactMap { object -> (String, String)? in
                guard let source = object["source"] as? String, let how = object["validation"] as? String else {
                    return nil
                }
                return (URL(string: source)?.lastPathComponent ?? source, how)
            })
        #expect(validations == ["v.png": "revalidated", "f.png": "fresh"])
        #expect(notModified.withLock { $0 } == 1)
        #expect(server.hits("/f.png") == 1)
        let info = try await Kf.run(["cache", "info", "--json"] + cache)
        let report = try #require(info.jsonObjects.first)
        #expect(report["freshSources"] as? Int == 1)
        #expect(report["staleSources"] as? Int == 1)
        #expect(report["sourcesWithoutValidators"] as? Int == 0)
        // --ignore-cache-headers: the cache answers, whatever the server said
        let ignoring = try await Kf.run(arguments + cache + ["--ignore-cache-headers"])
        #expect(ignoring.jsonObjects.allSatisfy { $0["cacheType"] as? String == "disk" && $0["validation"] is NSNull })
        #expect(server.hits("/v.png") == 2)
        try await server.shutdown()
    }

    @Test("prefetch --original keeps each response's record, so a later fetch is fresh without a request")
    func prefetchedOriginalsAreFresh() async throws {
        let server = try await TestHTTPServer.start()
        let dir = try TempDir()
        server.route("/p.jpg", .cacheable(try Samples.jpeg(width: 80, height: 60), contentType: "image/jpeg"))
        let url = server.url("/p.jpg").absoluteString
        try Data(url.utf8).write(to: dir.url.appendingPathComponent("urls.txt"))
        let prefetch = try await Kf.run(
            ["prefetch", "--url-file", dir.path("urls.txt"), "--original", "--cache-dir", dir.path("cache")])
        #expect(prefetch.status == 0, "\(prefetch.stderr)")
        let fetch = try await Kf.run(["fetch", url, "--original", "--json", "--cache-dir", dir.path("cache")])
        // (made from the cached original, fresh by its record, without a request)
        #expect(fetch.jsonObjects.first?["validation"] as? String == "fresh", "\(fetch.stdout)")
        #expect(server.hits("/p.jpg") == 1)
        try await server.shutdown()
    }

    @Test("a fetch cut off mid-transfer is kept, counted by cache info, and resumed by the next fetch")
    func cutOffFetchIsResumed() async throws {
        let server = try await TestHTTPServer.start()
        let dir = try TempDir()
        // 3 MB that --original accepts (a PNG signature; nothing is decoded)
        let body =
            Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            + Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })
        let ranges = Locked<[String]>([])
        let cut = Locked(true)
        server.route("/big.png") { headers in
            let fields = [("ETag", #""big-1""#), ("Accept-Ranges", "bytes"), ("Content-Type", "image/png")]
            if let range = headers.first(where: { $0.0.lowercased() == "range" })?.1,
                let start = Int(range.dropFirst("bytes=".count).dropLast())
            {
                ranges.withLock { $0.append(range) }
                return TestHTTPServer.Route(
                    status: 206,
                    headers: fields + [("Content-Range", "bytes \(start)-\(body.count - 1)/\(body.count)")],
                    body: body.subdata(in: start..<body.count))
            }
            let cutNow = cut.withLock { value in
                defer { value = false }
                return value
            }
            return TestHTTPServer.Route(headers: fields, body: body, closeAfterBodyBytes: cutNow ? 1 << 20 : nil)
        }
        let cache = ["--cache-dir", dir.path("cache")]
        let arguments = ["fetch", server.url("/big.png").absoluteString, "--original", "--json"]
        let first = try await Kf.run(arguments + cache)
        #expect(first.status != 0, "\(first.stdout) \(first.stderr)")
        let info = try await Kf.run(["cache", "info", "--json"] + cache)
        #expect(info.jsonObjects.first?["interruptedDownloads"] as? Int == 1, "\(info.stdout)")
        let second = try await Kf.run(arguments + cache + ["-o", dir.path("big.png")])
        #expect(second.status == 0, "\(second.stderr)")
        let asked = ranges.withLock { $0 }
        #expect(asked.count == 1)
        #expect(try Data(contentsOf: dir.url.appendingPathComponent("big.png")) == body)
        let after = try await Kf.run(["cache", "info", "--json"] + cache)
        #expect(after.jsonObjects.first?["interruptedDownloads"] as? Int == 0)
        try await server.shutdown()
    }
}
