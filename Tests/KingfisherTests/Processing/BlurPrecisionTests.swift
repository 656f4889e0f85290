import CVips
import Foundation
import Testing

@testable import Kingfisher

/// The blur shares one Gaussian mask across an animation's frames and convolves small frames in floating point;
/// its pixels stay libvips' own `gaussblur`'s (to rounding), on both paths, with and without alpha.
@Suite struct BlurPrecisionTests {
    @Test(arguments: [(40, 30, UInt8(255)), (40, 30, UInt8(128)), (400, 300, UInt8(255)), (400, 300, UInt8(128))])
    func blurMatchesLibvipsGaussblur(width: Int, height: Int, alpha: UInt8) throws {
        let image = Fixtures.gradient(width: width, height: height, alpha: alpha)
        let sigma = 3.0
        let blurred = try #require(BlurImageProcessor(blurRadius: sigma).run(image))
        // The reference: libvips' gaussblur, alpha premultiplied around it as the processor does
        var reference = image.storage
        if image.hasAlpha { reference = try reference.apply("premultiply") { cvips_premultiply($0, $1) } }
        reference = try reference.apply("gaussblur") { cvips_gaussblur($0, $1, sigma) }
        if image.hasAlpha { reference = try reference.apply("unpremultiply") { cvips_unpremultiply($0, $1) } }
        let expected = KFCrossPlatformImage(
            storage: try reference.srgb8().materialised(), scale: 1, animation: nil, animatedImageData: nil)
        let got = blurred.kf.rgbaPixels()
        let want = expected.kf.rgbaPixels()
        #expect(got.count == want.count)
        let worst = zip(got, want).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(worst <= 1, "\(width)x\(height) alpha \(alpha): off by \(worst)")
    }
}
