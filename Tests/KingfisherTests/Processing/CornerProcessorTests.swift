import Foundation
import Kingfisher
import Testing

@Suite struct CornerProcessorTests {
    @Test func roundCornersAreTransparentAndTheCentreOpaque() throws {
        // Given an opaque JPEG (no alpha)
        let image = try KFCrossPlatformImage(decoding: Fixtures.jpeg(width: 80, height: 60))
        #expect(!image.hasAlpha)

        let rounded = try #require(RoundCornerImageProcessor(cornerRadius: 20).run(image))
        #expect(rounded.hasAlpha && rounded.pixelWidth == 80 && rounded.pixelHeight == 60)
        for (x, y) in [(0, 0), (79, 0), (0, 59), (79, 59)] {
            #expect(rounded.pixel(x, y)[3] == 0, "corner \(x),\(y)")
        }
        #expect(rounded.pixel(40, 30)[3] == 255)
        #expect(rounded.pixel(40, 0)[3] == 255)  // the straight edge between corners stays
        // Anti-aliased: somewhere along the arc alpha is neither 0 nor 255
        let arc = (0..<20).map { rounded.pixel($0, $0)[3] }
        #expect(arc.contains { $0 > 0 && $0 < 255 }, "\(arc)")
        // The colour of opaque pixels is untouched
        #expect(Array(rounded.pixel(40, 30).prefix(3)) == Array(image.pixel(40, 30).prefix(3)))
    }

    @Test func selectedCornersOnly() throws {
        let image = Fixtures.gradient(width: 40, height: 40)
        let rounded = try #require(
            RoundCornerImageProcessor(cornerRadius: 10, roundingCorners: [.topLeft, .bottomRight]).run(image))
        #expect(rounded.pixel(0, 0)[3] == 0 && rounded.pixel(39, 39)[3] == 0)
        #expect(rounded.pixel(39, 0)[3] == 255 && rounded.pixel(0, 39)[3] == 255)
    }

    @Test func widthFractionMakesACircleAndTargetSizeStretches() throws {
        let image = Fixtures.gradient(width: 100, height: 50)
        let circle = try #require(
            RoundCornerImageProcessor(radius: .widthFraction(0.5), targetSize: CGSize(width: 40, height: 40)).run(image)
        )
        #expect(circle.pixelWidth == 40 && circle.pixelHeight == 40)
        #expect(circle.pixel(3, 3)[3] == 0)  // inside the square, outside the circle
        #expect(circle.pixel(20, 1)[3] > 200 && circle.pixel(20, 20)[3] == 255)
    }

    @Test func backgroundColourFillsTheCorners() throws {
        let image = Fixtures.solid([0, 0, 255, 255], width: 30, height: 30)
        let rounded = try #require(RoundCornerImageProcessor(cornerRadius: 10, backgroundColor: .red).run(image))
        #expect(rounded.pixel(0, 0) == [255, 0, 0, 255])
        #expect(rounded.pixel(15, 15) == [0, 0, 255, 255])
    }

    @Test func radiusIsInPoints() throws {
        // At scale 2 a 5-point radius is 10 pixels: pixel (2, 1) is outside a 10 px arc but inside a 5 px one
        let retina = Fixtures.gradient(width: 40, height: 40, scale: 2)
        let rounded = retina.kf.image(withRoundRadius: 5, fit: retina.size)
        #expect(rounded.pixelWidth == 40)
        #expect(rounded.pixel(2, 1)[3] == 0)
        let plain = Fixtures.gradient(width: 40, height: 40)
        #expect(plain.kf.image(withRoundRadius: 5, fit: plain.size).pixel(2, 1)[3] > 200)
    }

    @Test func borderIsDrawnInsideTheEdges() throws {
        let image = Fixtures.solid([255, 255, 255, 255], width: 40, height: 30)
        let bordered = try #require(BorderImageProcessor(border: Border(color: .red, lineWidth: 4)).run(image))
        #expect(bordered.pixelWidth == 40 && bordered.pixelHeight == 30)
        #expect(bordered.pixel(1, 15) == [255, 0, 0, 255])
        #expect(bordered.pixel(20, 28) == [255, 0, 0, 255])
        #expect(bordered.pixel(20, 15) == [255, 255, 255, 255])
        #expect(!bordered.hasAlpha || bordered.pixel(20, 15)[3] == 255)
    }
}
