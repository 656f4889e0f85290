import Foundation
import Kingfisher
import Testing

@Suite struct ColorProcessorTests {
    @Test func blurLowersTheVarianceOfACheckerboard() throws {
        // Measured away from the edges, where edge extension adds its own pattern
        let board = checkerboard(width: 128, height: 128, cell: 8)
        func centre(_ image: KFCrossPlatformImage) -> KFCrossPlatformImage {
            image.kf.crop(to: CGSize(width: 48, height: 48), anchorOn: CGPoint(x: 0.5, y: 0.5))
        }
        let blurred = try #require(BlurImageProcessor(blurRadius: 3).run(board))
        #expect(blurred.pixelWidth == 128 && blurred.pixelHeight == 128)
        #expect(variance(centre(blurred)) < variance(centre(board)) / 2, "\(variance(blurred)) vs \(variance(board))")
        // A larger radius blurs more; the mean brightness is kept
        let more = try #require(BlurImageProcessor(blurRadius: 8).run(board))
        #expect(variance(centre(more)) < variance(centre(blurred)) / 4)
        #expect(abs(meanColor(centre(more))[0] - meanColor(centre(board))[0]) < 4)
    }

    @Test func overlayMovesTheMeanTowardTheColourByTheFraction() throws {
        let image = Fixtures.gradient(width: 50, height: 50)
        let before = meanColor(image)
        for fraction in [0.0, 0.25, 0.8] {
            let output = try #require(OverlayImageProcessor(overlay: .red, fraction: CGFloat(fraction)).run(image))
            let after = meanColor(output)
            let expected = [255, 0, 0].enumerated().map {
                before[$0.offset] * fraction + Double($0.element) * (1 - fraction)
            }
            for channel in 0..<3 {
                #expect(abs(after[channel] - expected[channel]) < 1.5, "fraction \(fraction) channel \(channel)")
            }
        }
    }

    @Test func tintByAlphaAndOpaqueTintCovers() throws {
        let image = Fixtures.gradient(width: 50, height: 50)
        let before = meanColor(image)
        let half = try #require(
            TintImageProcessor(tint: KFCrossPlatformColor(red: 0, green: 0, blue: 1, alpha: 0.5)).run(image))
        let after = meanColor(half)
        #expect(abs(after[2] - (before[2] * 0.5 + 255 * 0.5)) < 1.5)
        #expect(abs(after[0] - before[0] * 0.5) < 1.5)
        let solid = try #require(TintImageProcessor(tint: .green).run(image))
        #expect(solid.pixel(10, 40) == [0, 255, 0, 255])
    }

    @Test func colourControlsAtDefaultsChangeNothing() throws {
        let image = Fixtures.gradient(width: 40, height: 40)
        let output = try #require(
            ColorControlsProcessor(brightness: 0, contrast: 1, saturation: 1, inputEV: 0).run(image))
        #expect(meanAbsoluteError(output.kf.rgbaPixels(), image.kf.rgbaPixels()) < 0.6)
    }

    @Test func eachColourControlMovesTheImageItsWay() throws {
        let image = Fixtures.gradient(width: 40, height: 40)
        let mean = meanColor(image).prefix(3).reduce(0, +)
        func run(_ b: CGFloat, _ c: CGFloat, _ s: CGFloat, _ ev: CGFloat) throws -> KFCrossPlatformImage {
            try #require(ColorControlsProcessor(brightness: b, contrast: c, saturation: s, inputEV: ev).run(image))
        }
        #expect(meanColor(try run(0.2, 1, 1, 0)).prefix(3).reduce(0, +) > mean + 30)
        #expect(meanColor(try run(-0.2, 1, 1, 0)).prefix(3).reduce(0, +) < mean - 30)
        #expect(meanColor(try run(0, 1, 1, 1)).prefix(3).reduce(0, +) > mean + 30)
        #expect(variance(try run(0, 0.3, 1, 0)) < variance(image))
        let flat = try run(0, 0, 1, 0)
        #expect(variance(flat) < 1)  // contrast 0: one grey
        let grey = try run(0, 1, 0, 0)
        #expect(hasEqualChannels(grey))
    }

    @Test func blackWhiteHasEqualChannels() throws {
        let image = Fixtures.gradient(width: 30, height: 30, alpha: 200)
        let output = try #require(BlackWhiteProcessor().run(image))
        #expect(hasEqualChannels(output))
        #expect(output.pixel(5, 5)[3] == 200)  // alpha untouched
    }

    @Test func blendModes() throws {
        let image = Fixtures.solid([100, 150, 200, 255], width: 10, height: 10)
        // Multiply onto white keeps the colour; onto a grey halves it
        let onWhite = try #require(BlendImageProcessor(blendMode: .multiply, backgroundColor: .white).run(image))
        #expect(onWhite.pixel(5, 5).prefix(3).elementsEqual([100, 150, 200]) { abs(Int($0) - Int($1)) <= 1 })
        let grey = KFCrossPlatformColor(red: 0.5, green: 0.5, blue: 0.5)
        let onGrey = try #require(BlendImageProcessor(blendMode: .multiply, backgroundColor: grey).run(image))
        #expect(onGrey.pixel(5, 5).prefix(3).elementsEqual([50, 75, 100]) { abs(Int($0) - Int($1)) <= 2 })
        // Normal at half alpha over white is halfway to white
        let half = try #require(BlendImageProcessor(blendMode: .normal, alpha: 0.5, backgroundColor: .white).run(image))
        #expect(half.pixel(5, 5).prefix(3).elementsEqual([178, 203, 228]) { abs(Int($0) - Int($1)) <= 2 })
        // Screen lightens, darken keeps the darker
        let screen = try #require(BlendImageProcessor(blendMode: .screen, backgroundColor: grey).run(image))
        #expect(screen.pixel(5, 5)[0] > 100)
        let darken = try #require(BlendImageProcessor(blendMode: .darken, backgroundColor: grey).run(image))
        #expect(darken.pixel(5, 5).prefix(3).elementsEqual([100, 128, 128]) { abs(Int($0) - Int($1)) <= 2 })
        // Every mode produces an image
        for mode in BlendMode.allCases {
            #expect(
                BlendImageProcessor(blendMode: mode, alpha: 0.7, backgroundColor: grey).run(image) != nil, "\(mode)")
        }
    }
}

private func hasEqualChannels(_ image: KFCrossPlatformImage) -> Bool {
    let pixels = image.kf.rgbaPixels()
    for index in stride(from: 0, to: pixels.count, by: 4)
    where pixels[index] != pixels[index + 1] || pixels[index + 1] != pixels[index + 2] {
        return false
    }
    return true
}
