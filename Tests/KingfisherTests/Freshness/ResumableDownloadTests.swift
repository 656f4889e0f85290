import Foundation
import Kingfisher
import KingfisherLocking
import KingfisherTestSupport
import Testing

/// Large downloads cut off mid-transfer and resumed with `Range` + `If-Range`, against a loopback origin that
/// honours ranges the way nginx does: what it served (200s, 206s, the ranges asked for) and the bytes that came of
/// it.
@Suite struct ResumableDownloadTests {
    /// An origin for one path serving a large PNG with a strong `ETag` and `Accept-Ranges: bytes`.
    final class Origin: Sendable {
        struct State {
            var body: Data
            var entityTag = #""v1""#
            var weakTag = false
            /// The next whole (200) response is cut off after this many body bytes.
            var cutNextAfter: Int?
            /// Answer ranges with this start instead of the one asked for (a broken server).
            var wrongRangeStart: Int?
            /// Answer range requests with `416` whatever they ask.
            var refusesRanges = false
            var okCount = 0
            var partialCount = 0
            var ranges: [String] = []
            var partialBytesSent = 0
        }

        let state: Locked<State>

        init(body: Data) { state = Locked(State(body: body)) }

        func change(_ change: (inout State) -> Void) { state.withLock { change(&$0) } }
        var ok: Int { state.withLock { $0.okCount } }
        var partial: Int { state.withLock { $0.partialCount } }
        var ranges: [String] { state.withLock { $0.ranges } }

        func respond(_ headers: [(String, String)]) -> TestHTTPServer.Route {
            func field(_ name: String) -> String? { headers.first { $0.0.lowercased() == name }?.1 }
            return state.withLock { state in
                let tag = state.weakTag ? "W/" + state.entityTag : state.entityTag
                let fields = [("ETag", tag), ("Accept-Ranges", "bytes"), ("Content-Type", "image/png")]
                if let range = field("range") {
                    state.ranges.append(range)
                    if state.refusesRanges { return TestHTTPServer.Route(status: 416) }
                    // `If-Range` with the current tag (or none): the rest; another tag: the whole new body.
                    if field("if-range").map({ $0 == state.entityTag }) ?? true,
                        range.hasPrefix("bytes="), range.hasSuffix("-"),
                        let asked = Int(range.dropFirst(6).dropLast()), asked < state.body.count
                    {
                        let start = state.wrongRangeStart ?? asked
                        let total = state.body.count
                        state.partialCount += 1
                        state.partialBytesSent += total - start
                        return TestHTTPServer.Route(
                            status: 206, headers: fields + [("Content-Range", "bytes \(start)-\(total - 1)/\(total)")],
                            body: state.body.subdata(in: start..<total))
                    }
                }
                state.okCount += 1
                let cut = state.cutNextAfter
                state.cutNextAfter = nil
                return TestHTTPServer.Route(headers: fields, body: state.body, closeAfterBodyBytes: cut)
            }
        }
    }

    /// A 5 MB PNG of noise (it does not compress), different for each `seed`.
    static func largePNG(seed: UInt64) -> Data {
        let (width, height) = (1300, 1300)
        var generator = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for index in stride(from: 0, to: pixels.count, by: 4) {
            generator ^= generator << 13
            generator ^= generator >> 7
            generator ^= generator << 17
            pixels[index] = UInt8(truncatingIfNeeded: generator)
            pixels[index + 1] = UInt8(truncatingIfNeeded: generator >> 8)
            pixels[index + 2] = UInt8(truncatingIfNeeded: generator >> 16)
        }
        let image = try! KFCrossPlatformImage(rgbaPixels: pixels, width: width, height: height)
        return try! image.kf.encoded(as: .PNG)
    }

    static let first = largePNG(seed: 1)
    static let second = largePNG(seed: 2)
    static let cut = 2 << 20

    /// A manager following HTTP caching (so resuming) over a temp-dir cache, and an origin at `/large.png`.
    private func withOrigin(
        policy: HTTPCachePolicy = .followsResponseHeaders,
        _ body: (ManagerFixture, Origin, URL) async throws -> Void
    ) async throws {
        try await withManager { f in
            let origin = Origin(body: Self.first)
            f.server.route("/large.png", responder: { origin.respond($0) })
            f.manager.httpCachePolicy = policy
            try await body(f, origin, f.server.url("/large.png"))
        }
    }

    private let retryOnce: KingfisherOptionsInfo = [
        .retryStrategy(DelayRetryStrategy(maxRetryCount: 1, retryInterval: .seconds(0))), .waitForCache,
    ]

    @Test func aCutOffDownloadIsResumedByTheRetryAndItsBytesEqualTheOrigins() async throws {
        try await withOrigin { f, origin, url in
            #expect(Self.first.count > 5_000_000)
            origin.change { $0.cutNextAfter = Self.cut }
            let result = try await f.manager.retrieveImage(with: url, options: retryOnce)
            // One whole response cut at 2 MB, then one 206 for the rest
            #expect(origin.ok == 1 && origin.partial == 1)
            let asked = try #require(origin.ranges.first)
            let start = try #require(Int(asked.dropFirst(6).dropLast()))
            #expect(start > 64 << 10 && start <= Self.cut)
            #expect(origin.state.withLock { $0.partialBytesSent } == Self.first.count - start)
            // The bytes delivered and cached are the origin's, whole
            #expect(result.image.pixelWidth == 1300)
            #expect(result.data() == Self.first)
            let cached = try #require(try f.cache.diskStorage.value(forKey: url.absoluteString))
            #expect(cached == Self.first)
            // Nothing is kept once the body is whole
            #expect(keptFiles(in: f.cache).isEmpty)
        }
    }

    @Test func aCutOffBodyWaitsOnDiskForTheNextRetrieval() async throws {
        try await withOrigin { f, origin, url in
            origin.change { $0.cutNextAfter = Self.cut }
            // Without a retry strategy the first retrieval fails, and keeps what arrived
            let failed = await f.manager.callbackResult(.network(url), options: [.waitForCache])
            #expect(failed.error != nil, "\(failed)")
            #expect(keptFiles(in: f.cache).count == 1)
            // A new manager over the same directory (as a new process would be) asks for the rest only
            let cache = try makeCache(in: f.directory)
            let manager = KingfisherManager(downloader: f.downloader, cache: cache)
            manager.httpCachePolicy = .followsResponseHeaders
            let result = try await manager.retrieveImage(with: url, options: [.waitForCache])
            #expect(origin.ok == 1 && origin.partial == 1)
            #expect(result.data() == Self.first)
            #expect(result.validation == .fetched)
        }
    }

    @Test func aChangedImageIsDownloadedWholeNeverSpliced() async throws {
        try await withOrigin { f, origin, url in
            origin.change { $0.cutNextAfter = Self.cut }
            _ = await f.manager.callbackResult(.network(url), options: [.waitForCache])
            // The origin's image changes before the retry: `If-Range` no longer matches, so it sends all of it
            origin.change {
                $0.body = Self.second
                $0.entityTag = #""v2""#
            }
            let result = try await f.manager.retrieveImage(with: url, options: [.waitForCache])
            #expect(origin.ranges.count == 1)
            #expect(origin.ok == 2 && origin.partial == 0)
            #expect(result.data() == Self.second)
            #expect(keptFiles(in: f.cache).isEmpty)
        }
    }

    @Test func aPartialResponseForAnotherRangeIsAnErrorAndCachesNothing() async throws {
        try await withOrigin { f, origin, url in
            origin.change {
                $0.cutNextAfter = Self.cut
                $0.wrongRangeStart = 1000
            }
            let failed = await f.manager.callbackResult(.network(url), options: retryOnce)
            #expect(failed.error?.isInvalidResponseStatusCode(206) == true)
            #expect(origin.ok == 1 && origin.partial == 1)
            #expect(!f.cache.isCached(forKey: url.absoluteString))
            // The kept start was dropped: the next retrieval asks for everything
            #expect(keptFiles(in: f.cache).isEmpty)
            let result = try await f.manager.retrieveImage(with: url, options: [.waitForCache])
            #expect(origin.ranges.count == 1 && origin.ok == 2)
            #expect(result.data() == Self.first)
        }
    }

    @Test func aPartialResponseToARequestWithoutARangeIsAnError() async throws {
        try await withManager { f in
            f.manager.httpCachePolicy = .followsResponseHeaders
            let body = Fixtures.png()
            f.server.route(
                "/odd.png",
                .init(status: 206, headers: [("Content-Range", "bytes 0-99/\(body.count)")], body: body.prefix(100)))
            let url = f.server.url("/odd.png")
            let failed = await f.manager.callbackResult(.network(url), options: [.waitForCache])
            #expect(failed.error?.isInvalidResponseStatusCode(206) == true)
            #expect(!f.cache.isCached(forKey: url.absoluteString))
        }
    }

    @Test func aDelegateThatRefusesThePartialResponseEndsTheResumingNotEveryLaterTry() async throws {
        try await withOrigin { f, origin, url in
            let delegate = RecordingDelegate(validStatusCodes: [200])
            f.downloader.delegate = delegate
            origin.change { $0.cutNextAfter = Self.cut }
            let failed = await f.manager.callbackResult(.network(url), options: retryOnce)
            #expect(failed.error?.isInvalidResponseStatusCode(206) == true)
            #expect(keptFiles(in: f.cache).isEmpty)
            let result = try await f.manager.retrieveImage(with: url, options: [.waitForCache])
            #expect(origin.ranges.count == 1 && origin.ok == 2)
            #expect(result.data() == Self.first)
        }
    }

    @Test func aRefusedRangeIsAskedForWhole() async throws {
        try await withOrigin { f, origin, url in
            origin.change {
                $0.cutNextAfter = Self.cut
                $0.refusesRanges = true
            }
            let result = try await f.manager.retrieveImage(with: url, options: retryOnce)
            // 200 cut, 416 to the range, then 200 whole within the same try
            #expect(origin.ranges.count == 1 && origin.ok == 2)
            #expect(result.data() == Self.first)
        }
    }

    @Test(arguments: [true, false])
    func nothingIsKeptWithoutAStrongValidatorOrWithTheHeadersIgnored(weakTag: Bool) async throws {
        let policy: HTTPCachePolicy = weakTag ? .followsResponseHeaders : .ignoresResponseHeaders
        try await withOrigin(policy: policy) { f, origin, url in
            origin.change {
                $0.cutNextAfter = Self.cut
                $0.weakTag = weakTag
            }
            let result = try await f.manager.retrieveImage(with: url, options: retryOnce)
            #expect(origin.ranges.isEmpty && origin.ok == 2)
            #expect(result.data() == Self.first)
            #expect(keptFiles(in: f.cache).isEmpty)
        }
    }

    @Test func aDamagedKeptFileIsIgnoredAndRemoved() async throws {
        try await withOrigin { f, origin, url in
            origin.change { $0.cutNextAfter = Self.cut }
            _ = await f.manager.callbackResult(.network(url), options: [.waitForCache])
            let kept = try #require(keptFiles(in: f.cache).first)
            // One byte of the kept body flipped on disk
            var bytes = try Data(contentsOf: kept)
            bytes[bytes.count - 10] ^= 0xFF
            try bytes.write(to: kept)
            let result = try await f.manager.retrieveImage(with: url, options: [.waitForCache])
            #expect(origin.ranges.isEmpty && origin.ok == 2)
            #expect(result.data() == Self.first)
            #expect(keptFiles(in: f.cache).isEmpty)
        }
    }

    @Test func clearingTheDiskCacheForgetsKeptBodies() async throws {
        try await withOrigin { f, origin, url in
            origin.change { $0.cutNextAfter = Self.cut }
            _ = await f.manager.callbackResult(.network(url), options: [.waitForCache])
            #expect(keptFiles(in: f.cache).count == 1)
            await f.cache.clearDiskCache()
            #expect(keptFiles(in: f.cache).isEmpty)
        }
    }

    private func keptFiles(in cache: ImageCache) -> [URL] {
        let kept = cache.diskStorage.directoryURL.appendingPathComponent(".kf-partial")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: kept.path)) ?? []
        return names.filter { $0.hasSuffix(".part") }.map { kept.appendingPathComponent($0) }
    }
}
