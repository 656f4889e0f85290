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
