import Foundation
import Kingfisher
import Testing

/// `kf.decoded` and `kf.decoded(scale:)`, as Kingfisher has them.
@Suite struct DecodedImageTests {
    @Test func decodedIsTheImageWithItsPixels() throws {
        let image = try KFCrossPlatformImage(decoding: Fixtures.png(width: 40, height: 20))
        let decoded = image.kf.decoded
        #expect(decoded.pixelWidth == 40 && decoded.pixelHeight == 20)
        #expect(decoded.kf.scale == image.kf.scale)
        #expect(decoded.kf.rgbaPixels() == image.kf.rgbaPixels())
    }

    @Test func decodedAtAScaleKeepsThePixelsAndChangesThePointSize() throws {
        let image = try KFCrossPlatformImage(decoding: Fixtures.png(width: 40, height: 20))
        let retina = image.kf.decoded(scale: 2)
        #expect(retina.kf.scale == 2)
        #expect(retina.kf.size == CGSize(width: 20, height: 10))
        #expect(retina.pixelWidth == 40 && retina.pixelHeight == 20)
        #expect(retina.kf.rgbaPixels() == image.kf.rgbaPixels())
        // A scale that means nothing leaves the image as it is
        #expect(image.kf.decoded(scale: 0).kf.scale == image.kf.scale)
        #expect(image.kf.decoded(scale: .nan).kf.size == image.kf.size)
    }
}
