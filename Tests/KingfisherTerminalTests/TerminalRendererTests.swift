import Foundation
import Kingfisher
import KingfisherTerminal
import Testing

/// A `width` x `height` image of one colour.
func solid(_ red: UInt8, _ green: UInt8, _ blue: UInt8, width: Int = 32, height: Int = 32) throws
    -> KFCrossPlatformImage
{
    let pixels = [UInt8]((0..<(width * height)).flatMap { _ in [red, green, blue, 255] })
    return try KFCrossPlatformImage(rgbaPixels: pixels, width: width, height: height)
}

@Suite("Rendering with libchafa")
struct TerminalRendererTests {
    let environment = ["TERM": "xterm-256color", "COLORTERM": "truecolor"]

    @Test("symbols: one line per row, within the size, in the image's colour")
    func symbols() throws {
        let renderer = TerminalRenderer(mode: .symbols, environment: environment)
        let picture = renderer.render(
            try solid(200, 10, 10, width: 64, height: 32), fitting: .init(columns: 40, rows: 20))
        #expect(!picture.isGraphics)
        // 64x32 pixels in cells twice as tall as wide: 2:1 across, so 40 columns by 10 rows.
        #expect(picture.size == TerminalGridSize(columns: 40, rows: 10))
        #expect(picture.lines.count == 10)
        #expect(picture.lines.allSatisfy { $0.contains("200;10;10") })
    }

    @Test("different images render differently")
    func differentImages() throws {
        let renderer = TerminalRenderer(mode: .symbols, environment: environment)
        let size = TerminalGridSize(columns: 20, rows: 10)
        let red = renderer.render(try solid(200, 10, 10), fitting: size)
        let blue = renderer.render(try solid(10, 10, 200), fitting: size)
        #expect(red.lines != blue.lines)
        #expect(blue.lines.joined().contains("10;10;200"))
    }

    @Test("sixel and kitty give one graphics sequence each")
    func graphics() throws {
        let image = try solid(0, 128, 0)
        let size = TerminalGridSize(columns: 20, rows: 10)
        let sixel = TerminalRenderer(mode: .sixel, environment: environment).render(image, fitting: size)
        let kitty = TerminalRenderer(mode: .kitty, environment: environment).render(image, fitting: size)
        #expect(sixel.isGraphics && kitty.isGraphics)
        #expect(sixel.lines.count == 1 && kitty.lines.count == 1)
        #expect(sixel.lines[0].hasPrefix("\u{1B}P"))  // DCS starts a sixel image
        #expect(kitty.lines[0].hasPrefix("\u{1B}_G"))  // APC G starts a kitty image
    }

    @Test("empty pixels or an empty size give an empty picture")
    func empty() {
        let renderer = TerminalRenderer(mode: .symbols, environment: environment)
        #expect(renderer.render(rgba: [], width: 0, height: 0, fitting: .init(columns: 10, rows: 10)).lines.isEmpty)
        #expect(
            renderer.render(rgba: [1, 2, 3], width: 1, height: 1, fitting: .init(columns: 10, rows: 10)).lines
                .isEmpty)
    }

    @Test("every frame of an animated image renders")
    func frames() throws {
        let animated = try KFCrossPlatformImage(
            frames: [solid(255, 0, 0), solid(0, 255, 0), solid(0, 0, 255)], frameDurations: [0.1, 0.1, 0.1])
        let renderer = TerminalRenderer(mode: .symbols, environment: environment)
        let pictures = renderer.renderFrames(animated, fitting: .init(columns: 16, rows: 8))
        #expect(pictures.count == 3)
        #expect(pictures[0].lines.joined().contains("255;0;0"))
        #expect(pictures[2].lines.joined().contains("0;0;255"))
    }
}
