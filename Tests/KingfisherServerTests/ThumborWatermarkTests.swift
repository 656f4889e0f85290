import Foundation
import Kingfisher
import Testing

@testable import KingfisherServer

/// `watermark(url,x,y,alpha[,w_ratio,h_ratio])`: thumbor's positions and sizes worked out by hand, the drawing, and
/// the server fetching the watermark as it fetches sources.
@Suite struct ThumborWatermarkTests {
    private let options = KingfisherParsedOptionsInfo(nil)

    private func watermark(_ arguments: String) throws -> ThumborWatermark {
        let filters = try ThumborFilters([
            ThumborURL.Filter(name: "watermark", arguments: arguments.split(separator: ",").map(String.init))
        ])
        guard case .watermark(let watermark)? = filters.effects.first else { throw ThumborURLError.missingImage }
        return watermark
    }

    private func xs(_ x: String, image: Int = 300, mark: Int = 50) throws -> [Int] {
        try watermark("w.png,\(x),0,0").placements(over: (image, 200), watermark: (mark, 20)).map(\.x)
    }

    @Test func positionsAreThumbors() throws {
        #expect(try xs("10") == [10])
        #expect(try xs("-10") == [240])  // 300 − 50 − 10: the far edge 10 pixels before the image's
        #expect(try xs("-0") == [250])
        #expect(try xs("center") == [125])
        #expect(try xs("20p") == [60])  // 20 % of 300
        #expect(try xs("-20p") == [190])
        #expect(try xs("repeat") == [0, 50, 100, 150, 200, 250])  // 300 = 6 × 50, no space left
        #expect(try xs("repeat", mark: 70) == [0, 76, 152, 228])  // 4 × 70 = 280: 20 left over 3 gaps → 6 each
        #expect(try xs("repeat", mark: 200) == [0, 210])  // fewer than two fit: two, 10 pixels apart
    }

    @Test func ratiosFitTheWatermarkInAShareOfTheImage() throws {
        // 20 % of 300 wide: 60; the height follows (50 × 60 / 100 = 30).
        #expect(try watermark("w.png,0,0,0,20").size(over: (300, 200), watermark: (100, 50)) == (60, 30))
        // 10 % of 200 high: 20; the width follows (40).
        #expect(try watermark("w.png,0,0,0,none,10").size(over: (300, 200), watermark: (100, 50)) == (40, 20))
        // Both: the tighter one wins.
        #expect(try watermark("w.png,0,0,0,50,10").size(over: (300, 200), watermark: (100, 50)) == (40, 20))
        #expect(try watermark("w.png,0,0,0").size(over: (300, 200), watermark: (100, 50)) == (100, 50))
    }

    @Test func badArgumentsAreRefusedWithTheReason() {
        for arguments in ["w.png,0,0", "w.png,left,0,0", "w.png,0,0,101", "w.png,0,0,-1", "w.png,0,0,0,0", ",0,0,0"] {
            #expect(throws: ThumborURLError.self, "\(arguments)") { try watermark(arguments) }
        }
    }

    @Test func theWatermarkIsDrawnWithItsTransparency() throws {
        let red = [UInt8]((0..<100 * 100).flatMap { _ in [255, 0, 0, 255] as [UInt8] })
        let base = try KFCrossPlatformImage(rgbaPixels: red, width: 100, height: 100).kf.encoded(as: .PNG)
        let blue = try KFCrossPlatformImage(
            rgbaPixels: [UInt8]((0..<20 * 20).flatMap { _ in [0, 0, 255, 255] as [UInt8] }), width: 20, height: 20)
        func processed(_ filter: String) throws -> KFCrossPlatformImage {
            var processor = try ThumborProcessor(ThumborURL(path: "/unsafe/100x100/filters:\(filter)/a.png"))
            processor.overlays["w.png"] = blue
            return try #require(processor.process(item: .data(base), options: options))
        }
        let opaque = try processed("watermark(w.png,10,10,0)")
        #expect(ServerFixtures.pixel(opaque, 15, 15) == [0, 0, 255, 255])
        #expect(ServerFixtures.pixel(opaque, 5, 5) == [255, 0, 0, 255])
        #expect(ServerFixtures.pixel(opaque, 35, 15) == [255, 0, 0, 255])
        // alpha 50: the watermark's alpha 255 − 127 = 128 over red: about half of each.
        let half = ServerFixtures.pixel(try processed("watermark(w.png,-10,-10,50)"), 85, 85).map(Int.init)
        #expect(abs(half[0] - 127) <= 2 && abs(half[2] - 128) <= 2, "\(half)")
        // Not given its image, the processing fails instead of drawing nothing.
        let missing = try ThumborProcessor(ThumborURL(path: "/unsafe/100x100/filters:watermark(w.png,0,0,0)/a.png"))
        #expect(missing.process(item: .data(base), options: options) == nil)
    }
}
