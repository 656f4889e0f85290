import Foundation
import Testing

@testable import Kingfisher

@Suite("sRGB profiles recognised by name")
struct ICCProfileNameTests {
    @Test("libvips' sRGB profile (ICC v4, mluc) is sRGB; Display P3 is not; garbage is not")
    func recognisesSRGB() throws {
        let srgb = try #require(Fixtures.embeddedProfile(of: Fixtures.srgbProfilePNG(rgb: [10, 20, 30])))
        #expect(ICCProfileName.description(of: srgb) == "sRGB")
        #expect(ICCProfileName.isSRGB(srgb))
        let p3 = try #require(Fixtures.embeddedProfile(of: Fixtures.displayP3PNG(srgb: [255, 0, 0]).data))
        #expect(ICCProfileName.description(of: p3) != nil)
        #expect(!ICCProfileName.isSRGB(p3))
        #expect(!ICCProfileName.isSRGB([]))
        #expect(!ICCProfileName.isSRGB([UInt8](repeating: 0xFF, count: 400)))
        var truncated = srgb
        truncated.removeLast(srgb.count - 140)
        #expect(!ICCProfileName.isSRGB(truncated))
    }

    @Test("an image with an sRGB profile decodes to its stored values, without the profile")
    func sRGBProfileIsIdentity() throws {
        let image = try KFCrossPlatformImage(decoding: Fixtures.srgbProfilePNG(rgb: [200, 120, 40]))
        let pixels = image.kf.rgbaPixels()
        #expect(Array(pixels[0..<3]) == [200, 120, 40])
    }
}
