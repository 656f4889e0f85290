import Foundation
import Kingfisher
import Testing

@Suite(.timeLimit(.minutes(1)))
struct CacheSerializerTests {
    let still = Fixtures.gradient(width: 32, height: 24)
    let animated = Fixtures.animation(colors: [[255, 0, 0, 255], [0, 0, 255, 255]], durations: [0.1, 0.2])

    @Test func defaultKeepsTheOriginalFormat() {
        let serializer = DefaultCacheSerializer.default
        #expect(serializer.data(with: still, original: Fixtures.jpeg())?.kf.imageFormat == .JPEG)
        #expect(serializer.data(with: still, original: Fixtures.png())?.kf.imageFormat == .PNG)
        let webp = still.kf.data(format: .WebP)
        #expect(serializer.data(with: still, original: webp)?.kf.imageFormat == .WebP)
    }

    @Test func defaultWithoutOriginalPicksGIFForAnimationAndPNGOtherwise() throws {
        let serializer = DefaultCacheSerializer.default
        #expect(serializer.data(with: still, original: nil)?.kf.imageFormat == .PNG)
        let gif = try #require(serializer.data(with: animated, original: nil))
        #expect(gif.kf.imageFormat == .GIF)
        // The animation survives the round trip
        let back = try #require(serializer.image(with: gif, options: KingfisherParsedOptionsInfo(nil)))
        #expect(back.kf.imageFrameCount == 2)
        // Garbage "original" data is not a format to keep
        #expect(serializer.data(with: still, original: garbageBytes)?.kf.imageFormat == .PNG)
    }

    @Test func animatedGIFKeepsItsAnimationAndBytes() throws {
        let gifData = try #require(animated.kf.gifRepresentation())
        let decoded = try KFCrossPlatformImage(decoding: gifData)
        let stored = try #require(DefaultCacheSerializer.default.data(with: decoded, original: gifData))
        #expect(stored == gifData)
        let back = try #require(DefaultCacheSerializer.default.image(with: stored, options: .init(nil)))
        #expect(back.kf.imageFrameCount == 2)
        #expect(abs(back.kf.duration - 0.3) < 0.02)
    }

    @Test func preferCacheOriginalDataStoresTheExactBytes() {
        var serializer = DefaultCacheSerializer()
        serializer.preferCacheOriginalData = true
        #expect(serializer.originalDataUsed)
        #expect(!DefaultCacheSerializer.default.originalDataUsed)
        let original = Fixtures.jpeg(quality: 0.3)
        #expect(serializer.data(with: still, original: original) == original)
        // Without it the image is re-encoded (quality 1.0 differs from the 0.3 original)
        #expect(DefaultCacheSerializer.default.data(with: still, original: original) != original)
    }

    @Test func compressionQualityShrinksLossyOutput() throws {
        var low = DefaultCacheSerializer()
        low.compressionQuality = 0.2
        let original = Fixtures.jpeg(width: 128, height: 128)
        let image = Fixtures.gradient(width: 128, height: 128)
        let small = try #require(low.data(with: image, original: original))
        let large = try #require(DefaultCacheSerializer.default.data(with: image, original: original))
        #expect(small.count < large.count)
    }

    @Test func formatIndicatedSerializersWriteTheirFormat() throws {
        let cases: [(FormatIndicatedCacheSerializer, ImageFormat)] = [
            (.png, .PNG), (.jpeg, .JPEG), (.jpeg(compressionQuality: 0.5), .JPEG), (.gif, .GIF), (.webp, .WebP),
        ]
        for (serializer, format) in cases {
            let data = try #require(serializer.data(with: still, original: Fixtures.png()))
            #expect(data.kf.imageFormat == format)
            let back = try #require(serializer.image(with: data, options: .init(nil)))
            #expect(back.pixelWidth == 32)
        }
        #expect(FormatIndicatedCacheSerializer.jpeg(compressionQuality: 0.5).jpegCompressionQuality == 0.5)
        let low = try #require(
            FormatIndicatedCacheSerializer.jpeg(compressionQuality: 0.1).data(with: still, original: nil))
        let high = try #require(FormatIndicatedCacheSerializer.jpeg.data(with: still, original: nil))
        #expect(low.count < high.count)
    }

    @Test func formatIndicatedGIFAndWebPKeepAnimation() throws {
        for serializer in [FormatIndicatedCacheSerializer.gif, .webp] {
            let data = try #require(serializer.data(with: animated, original: nil))
            let back = try #require(serializer.image(with: data, options: .init(nil)))
            #expect(back.kf.imageFrameCount == 2)
        }
    }

    @Test func cacheUsesTheSerializerFromOptions() async throws {
        try await withTemporaryDirectory { directory in
            let cache = try makeCache(in: directory)
            var options = KingfisherParsedOptionsInfo([.cacheSerializer(FormatIndicatedCacheSerializer.jpeg)])
            options.forcedExtension = "jpg"
            try await cache.store(still, original: Fixtures.png(), forKey: "k", options: options)
            let path = cache.cachePath(forKey: "k", forcedExtension: "jpg")
            #expect(path.hasSuffix(".jpg"))
            #expect(FileManager.default.contents(atPath: path)?.kf.imageFormat == .JPEG)
        }
    }
}
