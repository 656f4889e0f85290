import Foundation
import Kingfisher
import Testing

@testable import KingfisherServer

/// `frame(url)`: a nine-patch read from its markers and drawn around the result, as thumbor's `_nine_patch` does.
@Suite struct ThumborFrameTests {
    private let options = KingfisherParsedOptionsInfo(nil)

    /// 7 × 7: the border marks column 3 and row 3 as stretching (top, left) and as the content (bottom, right);
    /// inside, green everywhere but a transparent centre pixel.
    private func patch() throws -> KFCrossPlatformImage {
        var pixels: [UInt8] = []
        for y in 0..<7 {
            for x in 0..<7 {
                let border = x == 0 || y == 0 || x == 6 || y == 6
                if border {
                    let marker = (y == 0 || y == 6) && x == 3 || (x == 0 || x == 6) && y == 3
                    pixels += marker ? [0, 0, 0, 255] : [0, 0, 0, 0]
                } else {
                    pixels += x == 3 && y == 3 ? [0, 0, 0, 0] : [0, 255, 0, 255]
                }
            }
        }
        return try KFCrossPlatformImage(rgbaPixels: pixels, width: 7, height: 7)
    }

    @Test func theMarkersGiveTheContentsPadding() throws {
        // The content marker at 3 on the bottom and right edges: 2 pixels from each side (the border not counted).
        let padding = try NinePatch(patch()).padding
        #expect(padding.left == 2 && padding.top == 2 && padding.right == 2 && padding.bottom == 2)
    }

    @Test func theImageIsPaddedAndFramedWithTheStretchedPatch() throws {
        let red = [UInt8]((0..<10 * 6).flatMap { _ in [255, 0, 0, 255] as [UInt8] })
        let image = try KFCrossPlatformImage(rgbaPixels: red, width: 10, height: 6).kf.encoded(as: .PNG)
        var processor = try ThumborProcessor(ThumborURL(path: "/unsafe/10x6/filters:frame(f.png)/a.png"))
        processor.overlays["f.png"] = try patch()
        let framed = try #require(processor.process(item: .data(image), options: options))
        // 10 × 6 plus 2 on every side; the fixed corners and edges green; the stretched transparent centre shows
        // the image.
        #expect(framed.pixelWidth == 14 && framed.pixelHeight == 10)
        for (x, y) in [(0, 0), (13, 9), (1, 5), (7, 1), (12, 8)] {
            #expect(ServerFixtures.pixel(framed, x, y) == [0, 255, 0, 255], "(\(x), \(y))")
        }
        for (x, y) in [(2, 2), (7, 5), (11, 7)] {
            #expect(ServerFixtures.pixel(framed, x, y) == [255, 0, 0, 255], "(\(x), \(y))")
        }
        #expect(throws: ThumborURLError.self) {
            try ThumborProcessor(ThumborURL(path: "/unsafe/filters:frame()/a.png"))
        }
    }
}
