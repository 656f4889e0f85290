import Foundation
import Testing

@testable import KingfisherServer

/// `meta/`'s operations, against what thumbor 7.8's JSON engine answered for the same URLs on a 1600 × 1000 photo.
@Suite struct ThumborMetaTests {
    private func operations(_ path: String, width: Int = 1600, height: Int = 1000) throws -> (
        [ThumborProcessor.MetaOperation], (Int, Int)
    ) {
        let processor = try ThumborProcessor(ThumborURL(path: "/unsafe/\(path)/a.jpg"))
        let described = processor.metaOperations(forWidth: width, height: height)
        return (described.operations, described.target)
    }

    @Test func theCropModeCropsTheSourceToTheBoxsProportionsThenResizes() throws {
        let (centred, target) = try operations("300x200")
        #expect(centred == [.crop(left: 50, top: 0, right: 1550, bottom: 1000), .resize(width: 300, height: 200)])
        #expect(target == (300, 200))
        // thumbor: {"type": "crop", "left": 100, "top": 0, "right": 1600, "bottom": 1000}, then the resize.
        let (focused, _) = try operations("300x200/filters:focal(1200x100:1500x400)")
        #expect(focused == [.crop(left: 100, top: 0, right: 1600, bottom: 1000), .resize(width: 300, height: 200)])
        let (left, _) = try operations("300x200/left")
        #expect(left.first == .crop(left: 0, top: 0, right: 1500, bottom: 1000))
    }

    @Test func fitModesOnlyResizeAndFlipsComeLast() throws {
        // thumbor: [{"type": "resize", "width": 300.0, "height": 188}], target 300 × 188.
        let (fitted, target) = try operations("fit-in/300x300")
        #expect(fitted == [.resize(width: 300, height: 188)])
        #expect(target == (300, 188))
        let (flipped, _) = try operations("fit-in/-300x-300")
        #expect(flipped == [.resize(width: 300, height: 188), .flipHorizontally, .flipVertically])
        // The same proportions: no crop; a manual crop first, in the source's pixels.
        #expect(try operations("160x100").0 == [.resize(width: 160, height: 100)])
        let (manual, manualTarget) = try operations("100x100:900x700/fit-in/400x400")
        #expect(manual == [.crop(left: 100, top: 100, right: 900, bottom: 700), .resize(width: 400, height: 300)])
        #expect(manualTarget == (400, 300))
    }

    @Test func theJSONHasThumborsShape() throws {
        let processor = try ThumborProcessor(ThumborURL(path: "/unsafe/300x200/a.jpg"))
        let data = processor.metaJSON(sourceURL: "example.com/a.jpg", width: 1600, height: 1000, frames: 1)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let thumbor = try #require(json["thumbor"] as? [String: Any])
        #expect(Set(thumbor.keys) == ["source", "operations", "target", "focal_points"])
        let source = try #require(thumbor["source"] as? [String: Any])
        #expect(source["url"] as? String == "example.com/a.jpg" && source["frameCount"] as? Int == 1)
        let points = try #require(thumbor["focal_points"] as? [[String: Any]])
        #expect(points.first?["origin"] as? String == "alignment" && points.first?["x"] as? Double == 800)
    }
}
