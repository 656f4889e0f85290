import Foundation
import Kingfisher
import Testing

@Suite struct GeometryProcessorTests {
    @Test func resizingModes() throws {
        // Given a 200x100 image and a 50x50 reference
        let image = Fixtures.gradient(width: 200, height: 100)
        let size = CGSize(width: 50, height: 50)

        let exact = try #require(ResizingImageProcessor(referenceSize: size).run(image))
        #expect(exact.pixelWidth == 50 && exact.pixelHeight == 50)

        // aspectFit fits inside, aspectFill covers
        let fit = try #require(ResizingImageProcessor(referenceSize: size, mode: .aspectFit).run(image))
        #expect(fit.pixelWidth == 50 && fit.pixelHeight == 25)
        let fill = try #require(ResizingImageProcessor(referenceSize: size, mode: .aspectFill).run(image))
        #expect(fill.pixelWidth == 100 && fill.pixelHeight == 50)
    }

    @Test func sizesInPointsHonourTheScale() throws {
        // A 2x image resized to 100x100 points has 200x200 pixels
        let image = try #require(KFCrossPlatformImage(data: Fixtures.png(width: 300, height: 300), scale: 2))
        let resized = try #require(
            ResizingImageProcessor(referenceSize: CGSize(width: 100, height: 100)).run(image, scale: 2))
        #expect(resized.pixelWidth == 200 && resized.pixelHeight == 200)
        #expect(resized.size == CGSize(width: 100, height: 100) && resized.scale == 2)
        // The wrapper method uses the image's own scale
        #expect(image.kf.resize(to: CGSize(width: 50, height: 25)).pixelWidth == 100)
        #expect(
            image.kf.resize(to: CGSize(width: 50, height: 50), for: .aspectFit).size == CGSize(width: 50, height: 50))
    }

    @Test func resizeKeepsTheGradient() throws {
        let image = Fixtures.gradient(width: 256, height: 256)
        let small = try #require(ResizingImageProcessor(referenceSize: CGSize(width: 64, height: 64)).run(image))
        // Left edge stays dark red, right edge bright red; top dark green, bottom bright green
        #expect(small.pixel(0, 32)[0] < 12 && small.pixel(63, 32)[0] > 243)
        #expect(small.pixel(32, 0)[1] < 12 && small.pixel(32, 63)[1] > 243)
    }

    @Test func downsamplingFromDataShrinksOnLoad() throws {
        // Given a 3000x2000 JPEG
        let data = Fixtures.jpeg(width: 3000, height: 2000, quality: 0.8)
        let processor = DownsamplingImageProcessor(size: CGSize(width: 300, height: 300))

        // When downsampled from data, and from an image
        let fromData = try #require(processor.process(item: .data(data), options: processingOptions()))
        let fromImage = try #require(processor.run(try KFCrossPlatformImage(decoding: data)))

        // Then both fit in 300x300 with the aspect ratio kept
        #expect(fromData.pixelWidth == 300 && fromData.pixelHeight == 200)
        #expect(fromImage.pixelWidth == 300 && fromImage.pixelHeight == 200)
        #expect(meanAbsoluteError(fromData.kf.rgbaPixels(), fromImage.kf.rgbaPixels()) < 4)
        // At scale 2 the pixel box doubles
        let retina = try #require(processor.process(item: .data(data), options: processingOptions(scale: 2)))
        #expect(retina.pixelWidth == 600 && retina.scale == 2)
        // Never enlarges
        let tiny = try #require(
            processor.process(item: .data(Fixtures.png(width: 40, height: 30)), options: processingOptions()))
        #expect(tiny.pixelWidth == 40)
    }

    @Test(arguments: [
        (CGPoint(x: 0, y: 0), 0, 0), (CGPoint(x: 0.5, y: 0.5), 40, 30), (CGPoint(x: 1, y: 1), 80, 60),
        (CGPoint(x: 1, y: 0), 80, 0), (CGPoint(x: -3, y: 7), 0, 60),
    ])
    func cropAnchorPicksTheRegion(anchor: CGPoint, expectedX: Int, expectedY: Int) throws {
        // Given a 100x80 gradient, red = x * 255 / 99, green = y * 255 / 79
        let image = Fixtures.gradient(width: 100, height: 80)
        let cropped = try #require(
            CroppingImageProcessor(size: CGSize(width: 20, height: 20), anchor: anchor).run(image))
        #expect(cropped.pixelWidth == 20 && cropped.pixelHeight == 20)
        // The top-left pixel of the crop is the source pixel at the expected origin
        #expect(cropped.pixel(0, 0) == image.pixel(expectedX, expectedY))
        #expect(cropped.pixel(19, 19) == image.pixel(expectedX + 19, expectedY + 19))
    }

    @Test func cropLargerThanTheImageIsClipped() throws {
        let image = Fixtures.gradient(width: 30, height: 20)
        let cropped = try #require(
            CroppingImageProcessor(size: CGSize(width: 100, height: 10), anchor: .zero).run(image))
        #expect(cropped.pixelWidth == 30 && cropped.pixelHeight == 10)
    }
}
