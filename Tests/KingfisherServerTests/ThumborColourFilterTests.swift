import Foundation
import Kingfisher
import Testing

@testable import KingfisherServer

/// The filters that change pixel values, against thumbor's arithmetic worked out by hand for flat colours (thumbor
/// truncates where libvips rounds: one level of difference is allowed).
@Suite struct ThumborColourFilterTests {
    private let options = KingfisherParsedOptionsInfo(nil)

    /// A PNG of `width` x `height` pixels of one colour (RGBA).
    private func flat(_ rgba: [UInt8], width: Int = 40, height: Int = 20) throws -> Data {
        let pixels = [UInt8]((0..<width * height).flatMap { _ in rgba })
        return try KFCrossPlatformImage(rgbaPixels: pixels, width: width, height: height).kf.encoded(as: .PNG)
    }

    private func process(_ filters: String, _ data: Data, box: String = "40x20") throws -> KFCrossPlatformImage {
        let processor = try ThumborProcessor(ThumborURL(path: "/unsafe/\(box)/filters:\(filters)/a.png"))
        return try #require(processor.process(item: .data(data), options: options))
    }

    private func colour(_ image: KFCrossPlatformImage, _ x: Int = 5, _ y: Int = 5) -> [Int] {
        ServerFixtures.pixel(image, x, y).map(Int.init)
    }

    private func close(_ got: [Int], _ expected: [Int]) -> Bool {
        got.count == expected.count && zip(got, expected).allSatisfy { abs($0 - $1) <= 1 }
    }

    @Test func brightnessAddsAPercentOfFullScaleAsThumborDoes() throws {
        // The photo: mean 31 became 133 in thumbor (31 + 255 × 40 / 100 = 31 + 102).
        let dark = try flat([31, 31, 31, 255])
        #expect(close(colour(try process("brightness(40)", dark)), [133, 133, 133, 255]))
        #expect(close(colour(try process("brightness(-100)", dark)), [0, 0, 0, 255]))
        #expect(close(colour(try process("brightness(100)", dark)), [255, 255, 255, 255]))
    }

    @Test func contrastScalesTheDistanceFromMidGrey() throws {
        // d = (100 + 50)² / 100 = 225: 100 → 225 × (100 − 128) / 100 + 128 = 65; 200 → 290, clamped to 255.
        let two = try flat([100, 200, 128, 255])
        #expect(close(colour(try process("contrast(50)", two)), [65, 255, 128, 255]))
        // d = (100 − 50)² / 100 = 25: 100 → 121, 200 → 146.
        #expect(close(colour(try process("contrast(-50)", two)), [121, 146, 128, 255]))
        #expect(close(colour(try process("contrast(-100)", two)), [128, 128, 128, 255]))
    }

    @Test func rgbAddsToEachChannelOnItsOwn() throws {
        let grey = try flat([100, 100, 100, 255])
        // +25, −51, +255 (clamped).
        #expect(close(colour(try process("rgb(10,-20,100)", grey)), [125, 49, 255, 255]))
    }

    @Test func colorizeBlendsEachChannelTowardTheColour() throws {
        let grey = try flat([100, 100, 100, 255])
        // red: (100 × 50 + 255 × 50) / 100 = 177.5; green kept; blue all the colour's 0.
        #expect(close(colour(try process("colorize(50,0,100,ff0000)", grey)), [178, 100, 0, 255]))
    }

    @Test func colourFiltersLeaveAlphaAlone() throws {
        let halfClear = try flat([31, 31, 31, 128])
        let brighter = colour(try process("brightness(40)", halfClear))
        #expect(brighter[3] == 128, "\(brighter)")
    }

    @Test func equalizeSpreadsEachChannelOverTheWholeRange() throws {
        // Left half 60, right half 90 (each channel): equalised, the two levels move apart, the upper to 255.
        let width = 40
        let height = 20
        let pixels = [UInt8](
            (0..<width * height).flatMap { index -> [UInt8] in
                index % width < width / 2 ? [60, 60, 60, 255] : [90, 90, 90, 255]
            })
        let data = try KFCrossPlatformImage(rgbaPixels: pixels, width: width, height: height).kf.encoded(as: .PNG)
        let equalised = try process("equalize()", data)
        let left = colour(equalised, 5, 5)
        let right = colour(equalised, 35, 5)
        #expect(right[0] == 255 && right[1] == 255 && right[2] == 255, "\(right)")
        #expect(left[0] < 60 && left[0] == left[1] && left[1] == left[2], "\(left)")
    }

    @Test func noiseAddsTheSameAmountToEachChannelAndASeedRepeatsIt() throws {
        let grey = try flat([128, 128, 128, 255], width: 64, height: 64)
        let noisy = try process("noise(40,7)", grey, box: "64x64").kf.rgbaPixels()
        let again = try process("noise(40,7)", grey, box: "64x64").kf.rgbaPixels()
        let other = try process("noise(40,8)", grey, box: "64x64").kf.rgbaPixels()
        #expect(noisy == again)
        #expect(noisy != other)
        let reds = stride(from: 0, to: noisy.count, by: 4).map { Int(noisy[$0]) }
        let isGrey = { (index: Int) -> Bool in noisy[index] == noisy[index + 1] && noisy[index] == noisy[index + 2] }
        let greys = stride(from: 0, to: noisy.count, by: 4).filter(isGrey).count
        #expect(greys == noisy.count / 4)
        let mean = Double(reds.reduce(0, +)) / Double(reds.count)
        let spread = (reds.map { pow(Double($0) - mean, 2) }.reduce(0, +) / Double(reds.count)).squareRoot()
        // Even values over 40 levels have a standard deviation of about 11.5.
        #expect(abs(mean - 128) < 3 && spread > 8 && spread < 15, "mean \(mean), spread \(spread)")
        #expect(try process("noise(0)", grey, box: "64x64").kf.rgbaPixels() == grey.decodedPixels())
    }

    @Test func proportionScalesTheResultAndIgnoresValuesOutsideItsRange() throws {
        let photo = ServerFixtures.png(width: 200, height: 100)
        #expect(size(try process("proportion(0.5)", photo, box: "200x100")) == [100, 50])
        #expect(size(try process("proportion(0.333)", photo, box: "200x100")) == [66, 33])
        #expect(size(try process("proportion(1.5)", photo, box: "200x100")) == [200, 100])
        #expect(size(try process("proportion(0.001)", photo, box: "200x100")) == [200, 100])
    }

    @Test func backgroundColorFlattensTransparency() throws {
        let clear = try flat([200, 0, 0, 0])
        let flattened = try process("background_color(00ff00)", clear)
        #expect(!flattened.hasAlpha)
        #expect(close(colour(flattened), [0, 255, 0, 255]))
        let named = try process("background_color(blue)", clear)
        #expect(close(colour(named), [0, 0, 255, 255]))
        let opaque = try flat([10, 20, 30, 255])
        #expect(close(colour(try process("background_color(fff)", opaque)), [10, 20, 30, 255]))
    }

    @Test func saturationMovesEachChannelFromThePerceivedBrightness() throws {
        // p = √(0.299 × 200² + 0.587 × 100² + 0.114 × 50²) = 135.2; factor 2: 135 + (200 − 135) × 2 = 264.8 → 255,
        // 135.2 + (100 − 135.2) × 2 = 64.8 → 64, 135.2 + (50 − 135.2) × 2 = −35 → 0.
        let warm = try flat([200, 100, 50, 255])
        #expect(close(colour(try process("saturation(2)", warm)), [255, 64, 0, 255]))
        #expect(close(colour(try process("saturation(0)", warm)), [135, 135, 135, 255]))
        #expect(close(colour(try process("saturation(1)", warm)), [200, 100, 50, 255]))
    }

    @Test func convolutionAppliesTheMatrixAndRepeatsEdges() throws {
        // A normalised box blur of a flat image is the same flat image, edges included.
        let flatGrey = try flat([90, 120, 150, 255])
        let blurred = try process("convolution(1;1;1;1;1;1;1;1;1,3,true)", flatGrey)
        #expect(close(colour(blurred, 0, 0), [90, 120, 150, 255]))
        #expect(close(colour(blurred, 20, 10), [90, 120, 150, 255]))
        // Not normalised, a single 2 doubles every band (alpha too, clamped).
        let doubled = try process("convolution(0;0;0;0;2;0;0;0;0,3,false)", flatGrey)
        #expect(close(colour(doubled, 7, 7), [180, 240, 255, 255]))
        // A horizontal edge kernel finds the boundary between the halves and nothing elsewhere.
        let photo = ServerFixtures.png(width: 200, height: 100)
        let edges = try process("convolution(-1;0;1,3,false)", photo, box: "200x100")
        #expect(colour(edges, 20, 50)[0] == 0 && colour(edges, 180, 50)[0] == 0)
        #expect(colour(edges, 100, 50)[2] > 150 && colour(edges, 20, 50)[2] == 0, "\(colour(edges, 100, 50))")
    }

    @Test func sharpenRaisesTheContrastOfAnEdgeAndLeavesFlatAreas() throws {
        let photo = ServerFixtures.png(width: 200, height: 100)
        let plain = try process("quality(90)", photo, box: "200x100")
        let sharp = try process("sharpen(2,1.0,true)", photo, box: "200x100")
        let spreadPlain = plain.kf.rgbaPixels()
        let spreadSharp = sharp.kf.rgbaPixels()
        // Far from the edge nothing changes; next to it the values overshoot (further from the middle grey).
        #expect(close(colour(sharp, 20, 50), colour(plain, 20, 50)))
        let row = 50 * 200 * 4
        let plainContrast = (95..<105).map { abs(Int(spreadPlain[row + $0 * 4]) - 128) }.reduce(0, +)
        let sharpContrast = (95..<105).map { abs(Int(spreadSharp[row + $0 * 4]) - 128) }.reduce(0, +)
        #expect(sharpContrast > plainContrast, "\(sharpContrast) vs \(plainContrast)")
    }

    @Test func stretchResizesToTheBoxWithoutCropping() throws {
        // Red and blue halves in a 20-pixel white frame.
        let photo = ServerFixtures.png(width: 200, height: 100, border: 20)
        let stretched = try process("stretch()", photo, box: "50x100")
        #expect(size(stretched) == [50, 100])
        // Squeezed, not cropped: the frame's left and right sides are still there.
        #expect(colour(stretched, 1, 50).prefix(3).allSatisfy { $0 > 200 }, "\(colour(stretched, 1, 50))")
        #expect(colour(stretched, 48, 50).prefix(3).allSatisfy { $0 > 200 })
        // Without it, the crop mode keeps the middle (red on the left, no frame).
        let cropped = try process("quality(90)", photo, box: "50x100")
        #expect(size(cropped) == [50, 100] && colour(cropped, 1, 50)[1] < 60, "\(colour(cropped, 1, 50))")
        // Fit modes and a proportional side are not stretched.
        #expect(size(try process("stretch()", photo, box: "fit-in/100x100")) == [100, 50])
        #expect(size(try process("stretch()", photo, box: "100x0")) == [100, 50])
    }

    @Test func maxAgeSetsTheResultsCacheControl() throws {
        let configuration = ImageServer.Configuration()
        let own = try ResultPlan(
            url: ThumborURL(path: "/unsafe/10x10/filters:max_age(60)/a.png"), accept: nil,
            configuration: configuration)
        #expect(own.maxAge == 60)
        let none = try ResultPlan(
            url: ThumborURL(path: "/unsafe/10x10/filters:max_age(0)/a.png"), accept: nil,
            configuration: configuration)
        #expect(none.maxAge == 0)
        let server = try ResultPlan(
            url: ThumborURL(path: "/unsafe/10x10/a.png"), accept: nil, configuration: configuration)
        #expect(server.maxAge == configuration.maxAge)
    }

    @Test(arguments: [
        "brightness(101)", "contrast(-101)", "rgb(1,2)", "rgb(1,2,300)", "colorize(50,50,50,red)",
        "colorize(50,50,101,ff0000)", "equalize(1)", "noise(-1)", "noise(101)", "proportion(x)",
        "background_color(nocolour)", "background_color(transparent)", "max_age(-1)", "max_age()",
        "convolution(1;1;1;1,2)", "convolution(1;2;x,3)", "convolution(1;1;1,3,maybe)", "sharpen(1)", "sharpen(11,1)",
        "stretch(1)", "saturation(-1)",
    ])
    func badArgumentsAreRefusedWithTheFiltersName(_ filter: String) {
        let name = String(filter.prefix { $0 != "(" })
        #expect {
            try ThumborProcessor(ThumborURL(path: "/unsafe/filters:\(filter)/a.jpg"))
        } throws: { error in
            guard case .badFilterArgument(let named, _) = error as? ThumborURLError else { return false }
            return named == name
        }
    }

    private func size(_ image: KFCrossPlatformImage) -> [Int] { [image.pixelWidth, image.pixelHeight] }
}

extension Data {
    /// The RGBA pixels of the image these bytes hold.
    fileprivate func decodedPixels() throws -> [UInt8] {
        try KFCrossPlatformImage(decoding: self).kf.rgbaPixels()
    }
}
