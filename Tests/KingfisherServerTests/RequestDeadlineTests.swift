import Foundation
import Kingfisher
import KingfisherTestSupport
import Testing

@testable import KingfisherServer

/// The time limit covers a request's whole processing, its filters included, and a chain of filters has a length
/// limit: a URL of a few kilobytes cannot buy minutes of work.
@Suite struct RequestDeadlineTests {
    private static let picture = TestHTTPServer.Route(
        headers: [("Content-Type", "image/png"), ("Cache-Control", "max-age=3600")],
        body: ServerFixtures.png(width: 200, height: 150))

    @Test func aChainLongerThanTheLimitIs400BeforeAnythingIsFetched() async throws {
        try await withHarness { harness in
            harness.origin.route("/a.png", Self.picture)
            let longest = Array(repeating: "grayscale()", count: ThumborFilters.maximumCount)
            let allowed = try await harness.request(
                harness.unsafe("20x20/filters:" + longest.joined(separator: ":"), "/a.png"))
            #expect(allowed.status == 200)
            let tooLong = try await harness.request(
                harness.unsafe("21x20/filters:" + (longest + ["grayscale()"]).joined(separator: ":"), "/b.png"))
            #expect(tooLong.status == 400)
            #expect(tooLong.text.contains("\(ThumborFilters.maximumCount + 1) filters, more than the limit of 50"))
            #expect(harness.origin.hits("/b.png") == 0)
        }
    }

    @Test func filtersThatEachFitTheTimeLimitButNotTogetherAre422() async throws {
        // One equalize of a quarter megapixel takes some 50 ms here, decoding and resizing included: within 3 s
        // however busy the machine; forty-eight of 4 megapixels take some 10 s on a quiet one.
        let tight: (inout ImageServer.Configuration) -> Void = {
            $0.engine.timeLimit = ImageEngine.TimeLimit(minimum: 3, perMegapixel: 0, perFrame: 0)
        }
        try await withHarness(tight) { harness in
            harness.origin.route("/a.png", Self.picture)
            let one = try await harness.request(harness.unsafe("500x500/filters:upscale():equalize()", "/a.png"))
            #expect(one.status == 200)
            let chain = Array(repeating: "equalize()", count: 48).joined(separator: ":")
            let many = try await harness.request(harness.unsafe("2000x2000/filters:upscale():" + chain, "/a.png"))
            #expect(many.status == 422, "\(many.text)")
            #expect(many.text.contains("took too long"))
        }
    }
}
