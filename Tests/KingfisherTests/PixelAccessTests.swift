import Foundation
import Kingfisher
import Testing

@Suite struct PixelAccessTests {
    @Test func pixelsRoundTripExactly() throws {
        let pixels = Fixtures.gradientPixels(width: 7, height: 5, alpha: 200)
        let image = try KFCrossPlatformImage(rgbaPixels: pixels, width: 7, height: 5, scale: 2)
        #expect(image.kf.rgbaPixels() == pixels)
        #expect(image.size == CGSize(width: 3.5, height: 2.5))
        #expect(image.kf.cost == 7 * 5 * 4)
        // Through PNG and back
        let decoded = try KFCrossPlatformImage(decoding: image.kf.encoded(as: .PNG))
        #expect(decoded.kf.rgbaPixels() == pixels)
    }

    @Test func alphaIsStraightNotPremultiplied() throws {
        let pixels: [UInt8] = [200, 100, 50, 64]
        let image = try KFCrossPlatformImage(rgbaPixels: pixels, width: 1, height: 1)
        let decoded = try KFCrossPlatformImage(decoding: image.kf.encoded(as: .PNG))
        #expect(decoded.kf.rgbaPixels() == pixels)
    }

    @Test func opaqueImagesReadWithFullAlpha() throws {
        let image = try KFCrossPlatformImage(decoding: Fixtures.jpeg(width: 10, height: 10))
        let pixels = image.kf.rgbaPixels()
        #expect(pixels.count == 10 * 10 * 4)
        #expect(stride(from: 3, to: pixels.count, by: 4).allSatisfy { pixels[$0] == 255 })
    }

    @Test func jpegFlattensTransparencyOntoWhite() throws {
        let clear = Fixtures.solid([0, 0, 0, 0], width: 8, height: 8)
        let jpeg = try KFCrossPlatformImage(decoding: clear.kf.encoded(as: .JPEG, compressionQuality: 1))
        #expect(jpeg.pixel(4, 4).prefix(3).allSatisfy { $0 >= 250 })
    }

    @Test func jpegQualityChangesSize() throws {
        let image = Fixtures.gradient(width: 128, height: 128)
        let low = try #require(image.kf.jpegRepresentation(compressionQuality: 0.2))
        let high = try #require(image.kf.jpegRepresentation(compressionQuality: 1))
        #expect(low.count < high.count)
    }

    @Test func webpAtFullQualityIsLossless() throws {
        let image = Fixtures.gradient(width: 40, height: 30, alpha: 180)
        let lossless = try KFCrossPlatformImage(decoding: image.kf.encoded(as: .WebP, compressionQuality: 1))
        #expect(lossless.kf.rgbaPixels() == image.kf.rgbaPixels())
        let lossy = try KFCrossPlatformImage(decoding: image.kf.encoded(as: .WebP, compressionQuality: 0.5))
        #expect(lossy.kf.rgbaPixels() != image.kf.rgbaPixels())
    }

    @Test func unknownFormatEncodesAsPNG() throws {
        let data = try #require(Fixtures.gradient(width: 4, height: 4).kf.data(format: .unknown))
        #expect(data.kf.imageFormat == .PNG)
    }

    @Test func engineReportsWhatItCanDo() {
        #expect(ImageEngine.libvipsVersion.hasPrefix("8."))
        #expect(ImageEngine.maximumPixelCount >= 100_000_000)
        for format in [ImageFormat.PNG, .JPEG, .GIF, .WebP, .TIFF] {
            #expect(ImageEngine.canDecode(format) && ImageEngine.canEncode(format), "\(format)")
        }
        #expect(!ImageEngine.canDecode(.unknown))
        #expect(!ImageEngine.canEncode(.SVG))
    }
}
