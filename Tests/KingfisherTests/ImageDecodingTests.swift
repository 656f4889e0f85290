import Foundation
import Kingfisher
import Testing

@Suite struct ImageDecodingTests {
    @Test(arguments: [ImageFormat.PNG, .JPEG, .GIF, .WebP, .HEIF, .AVIF, .TIFF, .BMP])
    func roundTripsEveryEncodableFormat(format: ImageFormat) throws {
        // Given a 64x48 gradient encoded in the format
        let original = Fixtures.gradient(width: 64, height: 48)
        let data = try original.kf.encoded(as: format, compressionQuality: 0.9)
        #expect(data.kf.imageFormat == format)

        // When it is decoded
        let decoded = try KFCrossPlatformImage(decoding: data)

        // Then size is kept and pixels are close to the original (exact for the lossless formats)
        #expect(decoded.pixelWidth == 64 && decoded.pixelHeight == 48)
        let error = meanAbsoluteError(original.kf.rgbaPixels(), decoded.kf.rgbaPixels())
        let lossless: Set<ImageFormat> = [.PNG, .TIFF, .BMP]
        #expect(lossless.contains(format) ? error == 0 : error < 12, "\(format): mean error \(error)")
    }

    @Test func decodesSVG() throws {
        let svg =
            #"<svg xmlns="http://www.w3.org/2000/svg" width="30" height="20"><rect width="30" height="20" fill="lime"/></svg>"#
        let image = try KFCrossPlatformImage(decoding: Data(svg.utf8))
        #expect(image.pixelWidth == 30 && image.pixelHeight == 20)
        #expect(image.pixel(15, 10) == [0, 255, 0, 255])
    }

    @Test func keepsAlpha() throws {
        let image = try KFCrossPlatformImage(decoding: Fixtures.png(alpha: 100))
        #expect(image.hasAlpha)
        #expect(image.pixel(0, 0)[3] == 100)
        let opaque = try KFCrossPlatformImage(decoding: Fixtures.jpeg())
        #expect(!opaque.hasAlpha)
        #expect(opaque.pixel(0, 0)[3] == 255)
    }

    @Test func sizeIsInPointsAtTheGivenScale() throws {
        let data = Fixtures.png(width: 200, height: 100)
        let image = try #require(KingfisherWrapper<KFCrossPlatformImage>.image(data: data, options: .init(scale: 2)))
        #expect(image.scale == 2)
        #expect(image.kf.size == CGSize(width: 100, height: 50))
        #expect(image.pixelWidth == 200)
        #expect(image.kf.cost == 200 * 100 * 4)
        #expect(KFCrossPlatformImage(data: data, scale: 3)?.size.width == CGFloat(200) / 3)
    }

    @Test func costOfAnOpaqueImageCountsThreeBands() throws {
        let image = try KFCrossPlatformImage(decoding: Fixtures.jpeg(width: 50, height: 40))
        #expect(image.kf.cost == 50 * 40 * 3)
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func appliesEXIFOrientation(orientation: Int) throws {
        // Given 40x20 stored pixels with a red top-left corner, tagged with an orientation
        let image = try KFCrossPlatformImage(decoding: Fixtures.orientedJPEG(orientation: orientation))

        // Then 5...8 swap width and height
        let swapped = orientation >= 5
        #expect(image.pixelWidth == (swapped ? 20 : 40) && image.pixelHeight == (swapped ? 40 : 20))

        // And the red corner lands where the orientation says
        let corner = redCorner(of: image, orientation: orientation)
        let pixel = image.pixel(corner.x == 0 ? 1 : corner.x - 1, corner.y == 0 ? 1 : corner.y - 1)
        #expect(pixel[0] > 200 && pixel[2] < 60, "orientation \(orientation): \(pixel)")
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func downsamplingAppliesEXIFOrientation(orientation: Int) throws {
        // Given 40x20 stored pixels with a red top-left corner, tagged with an orientation, shrunk on load by 2
        let data = Fixtures.orientedJPEG(orientation: orientation)
        let image = try #require(
            KingfisherWrapper<KFCrossPlatformImage>.downsampledImage(
                data: data, to: CGSize(width: 20, height: 20), scale: 1))

        // Then it fits 20x20 upright: 5...8 swap width and height
        let swapped = orientation >= 5
        #expect(image.pixelWidth == (swapped ? 10 : 20) && image.pixelHeight == (swapped ? 20 : 10))

        // And the red corner lands where the orientation says, as in a full decode
        let corner = redCorner(of: image, orientation: orientation)
        let pixel = image.pixel(corner.x, corner.y)
        #expect(pixel[0] > pixel[2], "orientation \(orientation): \(pixel)")
        let opposite = image.pixel(image.pixelWidth - 1 - corner.x, image.pixelHeight - 1 - corner.y)
        #expect(opposite[2] > 200 && opposite[0] < 60, "orientation \(orientation): \(opposite)")
    }

    @Test func reEncodingDoesNotRotateAgain() throws {
        let upright = try KFCrossPlatformImage(decoding: Fixtures.orientedJPEG(orientation: 6))
        let again = try KFCrossPlatformImage(decoding: upright.kf.encoded(as: .JPEG, compressionQuality: 0.9))
        #expect(again.pixelWidth == 20 && again.pixelHeight == 40)
    }

    @Test func cmykJPEGDecodesToSRGB() throws {
        // White paper (no ink) and full black ink
        let white = try KFCrossPlatformImage(decoding: Fixtures.cmykJPEG(cmyk: [0, 0, 0, 0]))
        let black = try KFCrossPlatformImage(decoding: Fixtures.cmykJPEG(cmyk: [0, 0, 0, 255]))
        let cyan = try KFCrossPlatformImage(decoding: Fixtures.cmykJPEG(cmyk: [255, 0, 0, 0]))
        #expect(!white.hasAlpha && white.kf.cost == 32 * 32 * 3)
        #expect(white.pixel(5, 5).prefix(3).allSatisfy { $0 > 230 }, "\(white.pixel(5, 5))")
        #expect(black.pixel(5, 5).prefix(3).allSatisfy { $0 < 70 }, "\(black.pixel(5, 5))")
        let c = cyan.pixel(5, 5)
        #expect(c[0] < 80 && c[1] > 120 && c[2] > 180, "cyan ink should look cyan: \(c)")
    }

    @Test func embeddedICCProfileIsConvertedToSRGB() throws {
        // Given pure sRGB red stored as Display P3 numbers with the P3 profile embedded
        let (data, stored) = Fixtures.displayP3PNG(srgb: [255, 0, 0])
        #expect(abs(Int(stored[0]) - 255) > 8 || stored[1] > 20, "the fixture must store different numbers: \(stored)")

        // When decoded, the profile is applied and the colour is sRGB red again
        let image = try KFCrossPlatformImage(decoding: data)
        let p = image.pixel(2, 2)
        #expect(p[0] >= 250 && p[1] <= 6 && p[2] <= 6, "\(p)")
    }

    @Test func sixteenBitPNGDecodesToEightBit() throws {
        let image = try KFCrossPlatformImage(decoding: Fixtures.png16(rgb: [65535, 32896, 0]))
        #expect(image.kf.cost == 16 * 16 * 3)
        let p = image.pixel(3, 3)
        #expect(p[0] == 255 && abs(Int(p[1]) - 128) <= 1 && p[2] == 0, "\(p)")
    }

    @Test func greyAndPalettePNGsDecodeToRGB() throws {
        let grey = try KFCrossPlatformImage(decoding: Fixtures.greyPNG())
        let right = grey.pixel(31, 0)
        #expect(right == [255, 255, 255, 255])
        #expect(grey.pixel(0, 0) == [0, 0, 0, 255])
        #expect(grey.kf.cost == 32 * 8 * 3)

        let palette = try KFCrossPlatformImage(decoding: Fixtures.palettePNG())
        let expected = Fixtures.gradient(width: 32, height: 32)
        #expect(meanAbsoluteError(palette.kf.rgbaPixels(), expected.kf.rgbaPixels()) < 6)
    }

    @Test func legacyUIImageStyleInitialisers() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // A JPEG saved with a lying ".png" extension decodes as what its bytes are
        let file = directory.appendingPathComponent("photo.png")
        try Fixtures.jpeg().write(to: file)
        let image = try #require(KFCrossPlatformImage(contentsOfFile: file.path))
        #expect(image.pixelWidth == 64)
        #expect(KFCrossPlatformImage(contentsOfFile: directory.appendingPathComponent("missing").path) == nil)
    }

    @Test func downsamplesWithoutEnlarging() throws {
        let data = Fixtures.jpeg(width: 400, height: 200)
        let small = try #require(
            KingfisherWrapper<KFCrossPlatformImage>.downsampledImage(
                data: data, to: CGSize(width: 50, height: 50), scale: 2))
        #expect(small.pixelWidth == 100 && small.pixelHeight == 50)
        #expect(small.size == CGSize(width: 50, height: 25))
        let same = try #require(
            KingfisherWrapper<KFCrossPlatformImage>.downsampledImage(
                data: data, to: CGSize(width: 1000, height: 1000), scale: 1))
        #expect(same.pixelWidth == 400)
    }
}

/// Where the stored top-left pixel of ``Fixtures/orientedJPEG(orientation:width:height:)`` is shown once `image`
/// is upright.
private func redCorner(of image: KFCrossPlatformImage, orientation: Int) -> (x: Int, y: Int) {
    let right = image.pixelWidth - 1
    let bottom = image.pixelHeight - 1
    switch orientation {
    case 1, 5: return (0, 0)
    case 2, 6: return (right, 0)
    case 3, 7: return (right, bottom)
    default: return (0, bottom)
    }
}

func meanAbsoluteError(_ a: [UInt8], _ b: [UInt8]) -> Double {
    guard a.count == b.count, !a.isEmpty else { return .infinity }
    return Double(zip(a, b).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(a.count)
}
