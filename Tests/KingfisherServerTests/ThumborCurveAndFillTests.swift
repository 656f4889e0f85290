import Foundation
import Kingfisher
import Testing

@testable import KingfisherServer

/// `curve(...)` against the natural cubic spline worked out by hand, and `fill(...)`'s auto colour, blurred copy and
/// transparency, as thumbor does them.
@Suite struct ThumborCurveAndFillTests {
    private let options = KingfisherParsedOptionsInfo(nil)

    /// A PNG of `width` x `height` pixels, each `pixel(x, y)` (RGBA).
    private func png(width: Int, height: Int, _ pixel: (Int, Int) -> [UInt8]) throws -> Data {
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width { pixels += pixel(x, y) }
        }
        return try KFCrossPlatformImage(rgbaPixels: pixels, width: width, height: height).kf.encoded(as: .PNG)
    }

    private func process(_ path: String, _ data: Data) throws -> KFCrossPlatformImage {
        let processor = try ThumborProcessor(ThumborURL(path: "/unsafe/\(path)/a.png"))
        return try #require(processor.process(item: .data(data), options: options))
    }

    private func colour(_ image: KFCrossPlatformImage, _ x: Int, _ y: Int) -> [Int] {
        ServerFixtures.pixel(image, x, y).map(Int.init)
    }

    private func points(_ pairs: [(Int, Int)]) -> [ThumborFilters.CurvePoint] {
        pairs.map { ThumborFilters.CurvePoint(x: $0.0, y: $0.1) }
    }

    @Test func aCurveIsANaturalCubicSplineThroughItsPoints() {
        // (0,0), (100,50), (200,200), spacing 100: the middle second derivative m solves
        // 100/6·0 + 200/3·m + 100/6·0 = (200−50)/100 − (50−0)/100 = 1, so m = 0.015. Halfway in each segment
        // (a = b = ½): y = (y0 + y1)/2 + 100²/6 · (⅛ − ½) · m = (y0 + y1)/2 − 9.375.
        let table = ThumborCurve.table(through: points([(0, 0), (100, 50), (200, 200)]))
        #expect(table[0] == 0 && table[100] == 50 && table[200] == 200)
        #expect(table[50] == 16)  // 25 − 9.375 = 15.625
        #expect(table[150] == 116)  // 125 − 9.375 = 115.625
        #expect(table[201] == 200 && table[255] == 200)  // from the last point on, its level
        // Two points: a straight line; before the first point, its level.
        let line = ThumborCurve.table(through: points([(50, 100), (150, 200)]))
        #expect(line[0] == 100 && line[49] == 100 && line[100] == 150 && line[255] == 200)
        // One point: that level everywhere.
        #expect(Set(ThumborCurve.table(through: points([(10, 77)]))) == [77])
    }

    @Test func curveMapsEachChannelThroughItsCurveThenTheOverallOne() throws {
        let grey = try png(width: 8, height: 8) { _, _ in [100, 100, 100, 255] }
        // red: 100 → 150 on the line (50,100)-(150,200), then the overall identity; green: constant 30;
        // blue: identity, then the overall curve halves nothing (identity too).
        let image = try process(
            "8x8/filters:curve([(0,0),(255,255)],[(50,100),(150,200)],[(0,30)],[(0,0),(255,255)])", grey)
        #expect(colour(image, 3, 3) == [150, 30, 100, 255])
        // The overall curve applies after the channel's: identity channels, overall (0,0)-(200,100).
        let halved = try process(
            "8x8/filters:curve([(0,0),(200,100)],[(0,0),(255,255)],[(0,0),(255,255)],[(0,0),(255,255)])", grey)
        #expect(colour(halved, 3, 3) == [50, 50, 50, 255])
    }

    @Test func badCurvesAreRefusedWithTheReason() {
        for curve in [
            "[]", "[(0,0),(0,10)]", "[(10,0),(5,10)]", "[(0,256)]", "[(0,-1)]", "[(a,b)]", "(0,0)", "[(0,0,0)]",
        ] {
            #expect(throws: ThumborURLError.self, "\(curve)") {
                try ThumborProcessor(
                    ThumborURL(path: "/unsafe/filters:curve(\(curve),[(0,0)],[(0,0)],[(0,0)])/a.png"))
            }
        }
        #expect(throws: ThumborURLError.self) {
            try ThumborProcessor(ThumborURL(path: "/unsafe/filters:curve([(0,0)],[(0,0)],[(0,0)])/a.png"))
        }
        // A trailing comma inside the list is thumbor's syntax too.
        #expect(throws: Never.self) {
            try ThumborProcessor(ThumborURL(path: "/unsafe/filters:curve([(0,0),],[(0,0)],[(0,0)],[(0,0)])/a.png"))
        }
    }

    @Test func fillAutoPaintsTheImagesMeanColourRoundedDown() throws {
        // Left half (10,20,30), right half (21,41,61): the means are 15.5, 30.5, 45.5, rounded down.
        let halves = try png(width: 20, height: 10) { x, _ in x < 10 ? [10, 20, 30, 255] : [21, 41, 61, 255] }
        let filled = try process("fit-in/40x40/filters:fill(auto)", halves)
        #expect(filled.pixelWidth == 40 && filled.pixelHeight == 40)
        #expect(colour(filled, 2, 2) == [15, 30, 45, 255])
        // Centred as thumbor centres: (40 − 20) / 2 = 10 from the left, (40 − 10) / 2 = 15 from the top.
        #expect(colour(filled, 10, 15) == [10, 20, 30, 255])
        #expect(colour(filled, 9, 15) == [15, 30, 45, 255])
    }

    @Test func fillCentresTheImageRoundingDownAsThumborDoes() throws {
        let red = try png(width: 9, height: 9) { _, _ in [255, 0, 0, 255] }
        // (20 − 9) / 2 = 5.5: thumbor puts it at 5 (whole-number division), whatever the alignment.
        let filled = try process("fit-in/20x20/right/bottom/filters:fill(0000ff)", red)
        #expect(colour(filled, 5, 5) == [255, 0, 0, 255])
        #expect(colour(filled, 4, 5) == [0, 0, 255, 255])
        #expect(colour(filled, 13, 13) == [255, 0, 0, 255])
        #expect(colour(filled, 14, 13) == [0, 0, 255, 255])
    }

    @Test func fillBlurPaintsABlurredStretchedCopyOfTheImage() throws {
        // Top half white, bottom half black: blurred and stretched, the canvas above the image is light, below it
        // dark, and grey in between; the image itself is untouched in the middle.
        let split = try png(width: 40, height: 20) { _, y in y < 10 ? [255, 255, 255, 255] : [0, 0, 0, 255] }
        let filled = try process("fit-in/40x80/filters:fill(blur)", split)
        #expect(filled.pixelWidth == 40 && filled.pixelHeight == 80)
        let top = colour(filled, 20, 2)[0]
        let bottom = colour(filled, 20, 77)[0]
        #expect(top > bottom + 20, "above \(top), below \(bottom)")
        #expect(top < 255 && bottom > 0, "blurred: above \(top), below \(bottom)")
        #expect(colour(filled, 20, 32) == [255, 255, 255, 255])  // the image: (80 − 20) / 2 = 30 from the top
        #expect(colour(filled, 20, 47) == [0, 0, 0, 255])
    }

    @Test func fillTransparentChoosesWhetherTheImagesTransparencyShowsTheFill() throws {
        // A transparent left half: by default it stays transparent (thumbor pastes the pixels as they are);
        // with fill_transparent it shows the fill colour.
        let half = try png(width: 10, height: 10) { x, _ in x < 5 ? [0, 0, 0, 0] : [255, 255, 255, 255] }
        let kept = try process("fit-in/20x10/filters:fill(ff0000)", half)
        #expect(colour(kept, 7, 5)[3] == 0)
        #expect(colour(kept, 2, 5) == [255, 0, 0, 255])
        let merged = try process("fit-in/20x10/filters:fill(ff0000,true)", half)
        #expect(colour(merged, 7, 5) == [255, 0, 0, 255])
        #expect(colour(merged, 12, 5) == [255, 255, 255, 255])
        #expect(throws: ThumborURLError.self) {
            try ThumborProcessor(ThumborURL(path: "/unsafe/filters:fill(red,maybe)/a.png"))
        }
    }
}
