import Foundation
import Kingfisher
import Testing

@testable import KingfisherServer

/// `focal(...)` and `extract_focal()`: the crop of the crop mode centred on the regions' weighted centre, as thumbor.
@Suite struct ThumborFocalTests {
    private let options = KingfisherParsedOptionsInfo(nil)

    /// 200 × 100: the left half red, the right half blue.
    private func halves() throws -> Data {
        var pixels: [UInt8] = []
        for _ in 0..<100 {
            for x in 0..<200 { pixels += x < 100 ? [255, 0, 0, 255] : [0, 0, 255, 255] }
        }
        return try KFCrossPlatformImage(rgbaPixels: pixels, width: 200, height: 100).kf.encoded(as: .PNG)
    }

    private func process(_ path: String, _ data: Data) throws -> KFCrossPlatformImage {
        let processor = try ThumborProcessor(ThumborURL(path: "/unsafe/\(path)/a.png"))
        return try #require(processor.process(item: .data(data), options: options))
    }

    private func isRed(_ image: KFCrossPlatformImage, _ x: Int, _ y: Int) -> Bool {
        let pixel = ServerFixtures.pixel(image, x, y)
        return pixel[0] > 200 && pixel[2] < 50
    }

    @Test func theCropIsCentredOnTheFocalRegion() throws {
        let data = try halves()
        // Without a focus the 100 × 100 crop is centred: half red, half blue.
        let centred = try process("100x100", data)
        #expect(isRed(centred, 10, 50) && !isRed(centred, 90, 50))
        // A region on the blue side: centre x 175, the crop as near it as the image allows (100...200): all blue.
        let right = try process("100x100/filters:focal(150x0:200x100)", data)
        #expect(right.pixelWidth == 100 && right.pixelHeight == 100)
        #expect(!isRed(right, 2, 50) && !isRed(right, 97, 50))
        // One on the red side, and it wins over the alignment.
        let left = try process("100x100/right/filters:focal(0x0:40x100)", data)
        #expect(isRed(left, 2, 50) && isRed(left, 97, 50))
    }

    @Test func regionsWeighByTheirAreaAndFollowTheResize() throws {
        let data = try halves()
        // A large red region (80 × 100 = 8000, centre 40) and a small blue one (10 × 10 = 100, centre 195): the
        // centre is (40 × 8000 + 195 × 100) / 8100 = 41 in the source, 20 in the half-size result: the crop
        // starts at 0 (clamped), all red.
        let weighed = try process("50x50/filters:focal(0x0:80x100):focal(190x45:200x55)", data)
        #expect(weighed.pixelWidth == 50 && weighed.pixelHeight == 50)
        #expect(isRed(weighed, 2, 25) && isRed(weighed, 47, 25))
    }

    @Test func regionsAreInTheSourcesPixelsWhenTheImageIsShrunkOnLoad() throws {
        // 1600 × 800, left half red: shrunk on load for a 100 × 100 result, the region (centre 1400) still counts
        // in the source's pixels and the crop lands on the blue side.
        var pixels: [UInt8] = []
        for _ in 0..<800 {
            for x in 0..<1600 { pixels += x < 800 ? [255, 0, 0, 255] : [0, 0, 255, 255] }
        }
        let large = try KFCrossPlatformImage(rgbaPixels: pixels, width: 1600, height: 800).kf.encoded(as: .JPEG)
        let focused = try process("100x100/filters:focal(1300x300:1500x500)", large)
        #expect(focused.pixelWidth == 100 && focused.pixelHeight == 100)
        #expect(!isRed(focused, 3, 50) && !isRed(focused, 96, 50))
        #expect(isRed(try process("100x100/left", large), 96, 50))
    }

    @Test func badRegionsAreRefusedWithTheReason() {
        for region in ["10x10:5x20", "10x10:20x10", "a", "10x10", "1x2:3x4:5x6"] {
            #expect(throws: ThumborURLError.self, "\(region)") {
                try ThumborProcessor(ThumborURL(path: "/unsafe/filters:focal(\(region))/a.png"))
            }
        }
    }

    @Test func extractFocalUnwrapsAThumborURLWithACrop() throws {
        let wrapped = "localhost:8888/unsafe/100x110:200x220/http://example.com/a.jpg"
        let url = try ThumborURL(path: "/unsafe/300x200/filters:extract_focal()/" + wrapped)
        #expect(url.image == "http://example.com/a.jpg")
        let filters = try ThumborFilters(url.filters)
        #expect(filters.focalRegions == [ThumborURL.Crop(left: 100, top: 110, right: 200, bottom: 220)])
        // Wrapped twice, the inner one with the crop; and a wrapped URL without a crop changes nothing.
        let nested = try ThumborURL(
            path: "/unsafe/filters:extract_focal()/h/unsafe/fit-in/50x50/h2/unsafe/1x2:3x4/example.com/b.png")
        #expect(nested.image == "example.com/b.png")
        #expect(try ThumborFilters(nested.filters).focalRegions.count == 1)
        let plain = try ThumborURL(path: "/unsafe/filters:extract_focal()/example.com/c.png")
        #expect(plain.image == "example.com/c.png")
        #expect(try ThumborFilters(plain.filters).focalRegions.isEmpty)
    }
}
