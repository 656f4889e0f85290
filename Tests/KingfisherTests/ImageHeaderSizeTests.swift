import Foundation
import Kingfisher
import Testing

@Suite("Header sizes read without decoding")
struct ImageHeaderSizeTests {
    @Test(
        "the header's size is the decoded size",
        arguments: [ImageFormat.PNG, .JPEG, .GIF, .WebP])
    func matchesDecodedSize(_ format: ImageFormat) throws {
        for (width, height) in [(1, 1), (321, 97), (97, 321)] {
            let image = Fixtures.gradient(width: width, height: height)
            // WebP at quality 1.0 is lossless (VP8L), below it lossy (VP8).
            for quality in format == .WebP ? [1.0, 0.8] : [1.0] {
                let data = try image.kf.encoded(as: format, compressionQuality: quality)
                let size = try #require(data.kf.headerPixelSize, "\(format) q\(quality)")
                #expect(size.width == width && size.height == height, "\(format) q\(quality)")
            }
        }
    }

    @Test("an animated WebP (VP8X) reports its canvas size")
    func extendedWebP() throws {
        let frames = (0..<3).map { _ in Fixtures.gradient(width: 40, height: 30) }
        let animation = try KFCrossPlatformImage(frames: frames, frameDurations: [0.1, 0.1, 0.1])
        let data = try animation.kf.encoded(as: .WebP, compressionQuality: 0.9)
        let size = try #require(data.kf.headerPixelSize)
        #expect(size.width == 40 && size.height == 30)
    }

    @Test("a BMP reports the size its DIB header declares")
    func bmp() throws {
        let size = try #require(Fixtures.bmp(width: 12, height: -7, pixelBytes: 12 * 7 * 3).kf.headerPixelSize)
        #expect(size.width == 12 && size.height == 7)
    }

    @Test("truncated or foreign bytes give nil, never a crash")
    func badInput() throws {
        let png = Fixtures.png(width: 10, height: 10)
        let jpeg = Fixtures.jpeg(width: 10, height: 10)
        for data in [Data(), png.prefix(12), jpeg.prefix(4), Data("GIF8".utf8), Data("RIFF0000WEBPVP8X".utf8)] {
            #expect(data.kf.headerPixelSize == nil)
        }
        #expect(Data(repeating: 0xFF, count: 100).kf.headerPixelSize == nil)
    }

    @Test("headers that break their format's rules give nil, so width * height never overflows (seen while fuzzing)")
    func outOfRuleSizes() throws {
        // PNG sides over 2^31 - 1: their product would overflow Int
        #expect(Fixtures.pngHeaderOnly(width: 0xFFFF_FFFF, height: 0xFFFF_FFFF).kf.headerPixelSize == nil)
        #expect(Fixtures.pngHeaderOnly(width: 0x8000_0000, height: 1).kf.headerPixelSize == nil)
        #expect(Fixtures.pngHeaderOnly(width: 0x7FFF_FFFF, height: 2).kf.headerPixelSize?.width == 0x7FFF_FFFF)
        // A side of 0
        #expect(Fixtures.pngHeaderOnly(width: 0, height: 5).kf.headerPixelSize == nil)
        let gif = Data("GIF89a".utf8) + Data([0, 0, 5, 0, 0, 0, 0]) + Data([0x3B])
        #expect(gif.kf.headerPixelSize == nil)
        // A first chunk that is not IHDR
        var notIHDR = Fixtures.pngHeaderOnly(width: 4, height: 4)
        notIHDR.replaceSubrange(12..<16, with: Data("IDAT".utf8))
        #expect(notIHDR.kf.headerPixelSize == nil)
    }
}
