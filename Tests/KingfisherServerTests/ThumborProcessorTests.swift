import Foundation
import Kingfisher
import Testing

@testable import KingfisherServer

@Suite struct ThumborProcessorTests {
    private let options = KingfisherParsedOptionsInfo(nil)

    private func process(_ path: String, _ data: Data) throws -> KFCrossPlatformImage {
        let processor = try ThumborProcessor(ThumborURL(path: "/unsafe/" + path + "/a.jpg"))
        return try #require(processor.process(item: .data(data), options: options))
    }

    private func size(_ image: KFCrossPlatformImage) -> [Int] { [image.pixelWidth, image.pixelHeight] }

    @Test func fitInFitsInsideAndNeverEnlargesUnlessAsked() throws {
        let photo = ServerFixtures.jpeg(width: 800, height: 400)
        #expect(size(try process("fit-in/200x200", photo)) == [200, 100])
        #expect(size(try process("fit-in/0x50", photo)) == [100, 50])
        #expect(size(try process("fit-in/2000x2000", photo)) == [800, 400])
        #expect(size(try process("fit-in/2000x2000/filters:upscale()", photo)) == [2000, 1000])
        // adaptive-fit-in turns the box to the image's orientation; full-fit-in fits the shorter side.
        #expect(size(try process("adaptive-fit-in/100x200", photo)) == [200, 100])
        #expect(size(try process("full-fit-in/200x200", photo)) == [400, 200])
    }

    @Test func cropModeFillsTheSizeAndEnlargesUnlessTold() throws {
        let photo = ServerFixtures.jpeg(width: 800, height: 400)
        #expect(size(try process("300x300", photo)) == [300, 300])
        #expect(size(try process("300x0", photo)) == [300, 150])
        #expect(size(try process("x100", photo)) == [200, 100])
        #expect(size(try process("1600x1000", photo)) == [1600, 1000])
        #expect(size(try process("1600x1000/filters:no_upscale()", photo)) == [800, 400])
        #expect(size(try process("origx100", photo)) == [800, 100])
        #expect(size(try process("0x0", photo)) == [800, 400])
    }

    @Test func alignmentChoosesWhatTheCropKeeps() throws {
        let photo = ServerFixtures.png(width: 400, height: 200)
        let left = try process("200x200/left", photo)
        let right = try process("200x200/right", photo)
        #expect(ServerFixtures.pixel(left, 100, 100)[0] > 200)  // the red half
        #expect(ServerFixtures.pixel(right, 100, 100)[2] > 200)  // the blue half
    }

    @Test func flipsMirrorTheResult() throws {
        let photo = ServerFixtures.png(width: 200, height: 100)
        let plain = try process("200x100", photo)
        let flipped = try process("-200x100", photo)
        #expect(ServerFixtures.pixel(plain, 10, 50)[0] > 200)
        #expect(ServerFixtures.pixel(flipped, 10, 50)[2] > 200)
    }

    @Test func trimAndManualCropWorkInSourcePixels() throws {
        let framed = ServerFixtures.png(width: 200, height: 100, border: 20)
        #expect(size(try process("trim", framed)) == [160, 60])
        #expect(size(try process("trim:bottom-right:10", framed)) == [160, 60])
        #expect(size(try process("10x10:110x60", framed)) == [100, 50])
        // Crop first, then resize what is left.
        #expect(size(try process("10x10:110x60/50x0", framed)) == [50, 25])
    }

    @Test func aManualCropIsInSourceCoordinatesAfterATrimAndIgnoredOutsideTheImage() throws {
        let framed = ServerFixtures.png(width: 200, height: 100, border: 20)
        // The trim keeps (20, 20)-(180, 80); the crop (10, 10)-(110, 60) is in the source's coordinates: what is
        // left of it is (20, 20)-(110, 60).
        #expect(size(try process("trim/10x10:110x60", framed)) == [90, 40])
        #expect(size(try process("500x500:600x600", framed)) == [200, 100])
    }

    @Test func aResultAboveThePixelLimitIsRefusedBeforeItIsMade() throws {
        let processor = try ThumborProcessor(ThumborURL(path: "/unsafe/30000x0/a.jpg"), maximumResultPixels: 1_000_000)
        let photo = ServerFixtures.jpeg(width: 200, height: 100)
        #expect(processor.process(item: .data(photo), options: options) == nil)
        let padded = try ThumborProcessor(
            ThumborURL(path: "/unsafe/fit-in/5000x5000/filters:fill(red)/a.jpg"), maximumResultPixels: 1_000_000)
        #expect(padded.process(item: .data(photo), options: options) == nil)
        let small = try ThumborProcessor(ThumborURL(path: "/unsafe/900x0/a.jpg"), maximumResultPixels: 1_000_000)
        #expect(small.process(item: .data(photo), options: options)?.pixelWidth == 900)
    }

    @Test func animatedWebPKeepsItsFramesWhenShrunk() throws {
        let frames = [
            ServerFixtures.halves(width: 200, height: 100),
            ServerFixtures.halves(width: 200, height: 100).kf.flipped(horizontally: true),
        ]
        let animation = try #require(KFCrossPlatformImage.animatedImage(with: frames, duration: 0.2))
        let webp = try #require(animation.kf.data(format: .WebP, compressionQuality: 0.8))
        #expect(ThumborProcessor.isAnimatedWebP(webp))
        #expect(!ThumborProcessor.isAnimatedWebP(ServerFixtures.halves(width: 20, height: 20).kf.data(format: .WebP)!))
        let shrunk = try process("100x50", webp)
        #expect(size(shrunk) == [100, 50])
        #expect(shrunk.kf.imageFrameCount == 2)
    }

    @Test func aProportionalSideRoundsAHalfToEvenAsThumbor() throws {
        // thumbor: round(8 × 27 / 48) = round(4.5) = 4 in Python (half to even); 13.5 → 14.
        let portrait = ServerFixtures.png(width: 27, height: 48)
        #expect(size(try process("0x8", portrait)) == [4, 8])
        #expect(size(try process("fit-in/0x8", portrait)) == [4, 8])
        // 9 × 8 / 16 = 4.5 exactly (the scale is 0.5): 4, where rounding half up gives 5; 11.5 → 12.
        #expect(size(try process("0x8", ServerFixtures.png(width: 9, height: 16))) == [4, 8])
        #expect(size(try process("0x8", ServerFixtures.png(width: 23, height: 16))) == [12, 8])
        #expect(size(try process("9x0", portrait)) == [9, 16])
    }

    @Test func fillPadsAFittedImageToTheBox() throws {
        let photo = ServerFixtures.jpeg(width: 200, height: 100)
        let filled = try process("fit-in/300x300/filters:fill(00ff00)", photo)
        #expect(size(filled) == [300, 300])  // the image is not enlarged; the rest of the box is green
        #expect(ServerFixtures.pixel(filled, 5, 5).prefix(3) == [0, 255, 0])
        #expect(ServerFixtures.pixel(filled, 60, 150)[0] > 200)  // the red half, centred
    }

    @Test func effectsRunInURLOrder() throws {
        let photo = ServerFixtures.png(width: 200, height: 100)
        let grey = try process("200x100/filters:grayscale()", photo)
        let pixel = ServerFixtures.pixel(grey, 10, 50)
        #expect(pixel[0] == pixel[1] && pixel[1] == pixel[2])
        let turned = try process("200x100/filters:rotate(90)", photo)
        #expect(size(turned) == [100, 200])
        // Anticlockwise, as thumbor: the red left half ends at the bottom.
        #expect(ServerFixtures.pixel(turned, 50, 190)[0] > 200)
    }

    @Test func unknownFiltersAndBadArgumentsAreRefusedWithTheReason() {
        #expect(throws: ThumborURLError.unknownFilter("sepia")) {
            try ThumborProcessor(ThumborURL(path: "/unsafe/filters:sepia(50)/a.jpg"))
        }
        #expect(throws: ThumborURLError.self) {
            try ThumborProcessor(ThumborURL(path: "/unsafe/filters:quality(101)/a.jpg"))
        }
        #expect(throws: ThumborURLError.self) {
            try ThumborProcessor(ThumborURL(path: "/unsafe/filters:rotate(45)/a.jpg"))
        }
        #expect(throws: ThumborURLError.self) {
            try ThumborProcessor(ThumborURL(path: "/unsafe/filters:fill(mauve-ish)/a.jpg"))
        }
        #expect(throws: ThumborURLError.self) {
            try ThumborProcessor(ThumborURL(path: "/unsafe/filters:grayscale(1)/a.jpg"))
        }
        #expect(throws: ThumborURLError.self) {
            try ThumborProcessor(ThumborURL(path: "/unsafe/filters:format(tiff)/a.jpg"))
        }
        let error = ThumborURLError.badFilterArgument(
            filter: "quality", reason: "\"101\" is not a whole number from 0 to 100")
        #expect(error.description == "bad argument of filter \"quality\": \"101\" is not a whole number from 0 to 100")
    }

    @Test func theIdentifierFollowsTheOptionsNotTheSignatureOrImage() throws {
        let a = try ThumborProcessor(ThumborURL(path: "/unsafe/fit-in/300x200/filters:quality(80)/x.example/a.jpg"))
        let b = try ThumborProcessor(
            ThumborURL(
                path: "/\(String(repeating: "a", count: 27))=/fit-in/300x200/filters:quality(80)/y.example/b.jpg"))
        let c = try ThumborProcessor(ThumborURL(path: "/unsafe/fit-in/300x201/filters:quality(80)/x.example/a.jpg"))
        #expect(a.identifier == b.identifier)
        #expect(a.identifier != c.identifier)
        #expect(a.identifier == "kf.ThumborProcessor(fit-in/300x200/filters:quality(80))")
    }

    @Test func smartCropsKeepTheSizeAskedFor() throws {
        let photo = ServerFixtures.jpeg(width: 800, height: 400)
        #expect(size(try process("200x200/smart", photo)) == [200, 200])
        #expect(size(try process("300x100/smart", photo)) == [300, 100])
    }

    @Test func arbitraryPathsParseOrFailWithAReasonNeverCrash() {
        // Pieces of thumbor URLs, shuffled and joined at random (a fixed seed, so a failure repeats).
        let pieces = [
            "unsafe", "fit-in", "adaptive-fit-in", "full-fit-in", "-300x-200", "0x0", "orig", "x", "trim",
            "trim:top-left:999", "10x10:5x5", "left", "center", "bottom", "smart", "meta", "filters:", "filters:blur(",
            "filters:quality(80):format(webp)", "filters:round_corner(20|10,255,255,255,1)", "filters:fill(ff0000,1)",
            "filters:rotate(-270)", "()", "((", "))", ":", "%2F", "%", "http:", "", "a.jpg", "..", "//", "\u{0}",
            String(repeating: "9", count: 30), "filters:brightness(-100):contrast(100):saturation(1e308)",
        ]
        var generator = SplitMix64(seed: 18)
        for _ in 0..<3_000 {
            let count = Int.random(in: 1...8, using: &generator)
            let path = "/" + (0..<count).map { _ in pieces.randomElement(using: &generator)! }.joined(separator: "/")
            do {
                let url = try ThumborURL(path: path)
                _ = try? ThumborProcessor(url)
            } catch {
                #expect(!error.description.isEmpty)
            }
        }
    }
}

/// A small seeded generator, so the random paths are the same on every run.
private struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
