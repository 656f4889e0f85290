import Foundation
import Kingfisher
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
}
