import Foundation
import Kingfisher
import KingfisherLocking
import KingfisherTestSupport
import Testing

@testable import KingfisherServer

/// `max_bytes(n)`: lower qualities first (thumbor's steps), then smaller, until a JPEG or WebP result fits.
@Suite struct MaxBytesTests {
    /// 200 × 150 of pseudo-random pixels (a fixed sequence): hard to compress, so quality matters.
    private func noisy() throws -> KFCrossPlatformImage {
        var state: UInt32 = 12345
        let pixels = (0..<200 * 150).flatMap { _ -> [UInt8] in
            state = state &* 1_103_515_245 &+ 12345
            let value = UInt8(truncatingIfNeeded: state >> 16)
            return [value, value &* 3, value &* 7, 255]
        }
        return try KFCrossPlatformImage(rgbaPixels: pixels, width: 200, height: 150)
    }

    @Test func aLowerQualityIsTriedBeforeASmallerSize() throws {
        let image = try noisy()
        let full = try #require(ResultSerializer(format: .JPEG, quality: 90).data(with: image, original: nil))
        let atLowest = try #require(image.kf.data(format: .JPEG, compressionQuality: 0.12))
        // A limit between the lowest quality's size and the first one's: a lower quality fits, the size is kept.
        var serializer = ResultSerializer(format: .JPEG, quality: 90)
        serializer.maximumBytes = (full.count + atLowest.count) / 2
        let fitted = try #require(serializer.data(with: image, original: nil))
        #expect(fitted.count <= serializer.maximumBytes! && fitted.count < full.count)
        let decoded = try #require(KFCrossPlatformImage(data: fitted))
        #expect(decoded.pixelWidth == 200 && decoded.pixelHeight == 150)
    }

    @Test func whenNoQualityFitsTheResultIsMadeSmaller() throws {
        let image = try noisy()
        var serializer = ResultSerializer(format: .JPEG, quality: 80)
        serializer.maximumBytes = 2_000
        let fitted = try #require(serializer.data(with: image, original: nil))
        #expect(fitted.count <= 2_000)
        let decoded = try #require(KFCrossPlatformImage(data: fitted))
        #expect(decoded.pixelWidth < 200 && decoded.pixelHeight < 150)
    }

    @Test func otherFormatsAndResultsWithinTheLimitAreLeftAlone() throws {
        let image = try noisy()
        var png = ResultSerializer(format: .PNG, quality: 80)
        let whole = try #require(png.data(with: image, original: nil))
        png.maximumBytes = 1_000
        #expect(try #require(png.data(with: image, original: nil)) == whole)
        var roomy = ResultSerializer(format: .JPEG, quality: 80)
        let plain = try #require(roomy.data(with: image, original: nil))
        roomy.maximumBytes = plain.count
        #expect(try #require(roomy.data(with: image, original: nil)) == plain)
    }

    @Test func maxBytesTakesAPositiveWholeNumber() throws {
        #expect(try ThumborFilters([ThumborURL.Filter(name: "max_bytes", arguments: ["8000"])]).maxBytes == 8000)
        for bad in ["0", "-5", "ten", ""] {
            #expect(throws: ThumborURLError.self, "\(bad)") {
                try ThumborFilters([ThumborURL.Filter(name: "max_bytes", arguments: [bad])])
            }
        }
    }

    /// A serializer whose encodings are counted.
    private func counted(
        _ serializer: ResultSerializer, _ count: Locked<Int>
    ) -> ResultSerializer {
        var counted = serializer
        let encode = serializer.encode
        counted.encode = { image, format, quality in
            count.withLock { $0 += 1 }
            return encode(image, format, quality)
        }
        return counted
    }

    @Test func aSizeThatCannotBeReachedGetsTheFirstEncodingAfterAFewTries() throws {
        let image = try noisy()
        let plain = try #require(ResultSerializer(format: .JPEG, quality: 80).data(with: image, original: nil))
        let encodings = Locked(0)
        var serializer = counted(ResultSerializer(format: .JPEG, quality: 80), encodings)
        serializer.maximumBytes = 1
        // As thumbor: the result as it would be without max_bytes, after the first encoding and at most a few more.
        #expect(try #require(serializer.data(with: image, original: nil)) == plain)
        #expect(encodings.withLock { $0 } <= 1 + ResultSerializer.maximumSearchEncodings)
        #expect(encodings.withLock { $0 } <= 3, "no lower quality fits, and no size the bytes allow is 8 px")
    }

    @Test func theSearchStopsAtTheTimeLimit() throws {
        let image = try noisy()
        let plain = try #require(ResultSerializer(format: .JPEG, quality: 80).data(with: image, original: nil))
        let encodings = Locked(0)
        var serializer = counted(ResultSerializer(format: .JPEG, quality: 80), encodings)
        serializer.maximumBytes = plain.count / 2
        serializer.timeLimit = ImageEngine.TimeLimit(minimum: 0, perMegapixel: 0, perFrame: 0)
        // No time for a second encoding: the first one is the answer.
        #expect(try #require(serializer.data(with: image, original: nil)) == plain)
        #expect(encodings.withLock { $0 } == 1)
    }

    @Test func anUnreachableSizeOverHTTPIsTheResultWithoutMaxBytes() async throws {
        let body = try #require(try noisy().kf.data(format: .JPEG, compressionQuality: 0.95))
        let harness = try await ServerHarness.start()
        harness.origin.route(
            "/n.jpg",
            TestHTTPServer.Route(
                headers: [("Content-Type", "image/jpeg"), ("Cache-Control", "max-age=3600")], body: body))
        let plain: ServerHarness.Answer
        let unreachable: ServerHarness.Answer
        do {
            plain = try await harness.request(harness.unsafe("filters:quality(80)", "/n.jpg"))
            unreachable = try await harness.request(harness.unsafe("filters:quality(80):max_bytes(1)", "/n.jpg"))
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
        #expect(plain.status == 200 && unreachable.status == 200)
        #expect(unreachable.body == plain.body)
    }
}
