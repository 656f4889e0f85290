import Kingfisher
import Testing

@testable import KingfisherTerminal

@Suite("Status line and blending")
struct StatusLineAndBlendTests {
    @Test("the loading line shows progress once the total is known")
    func loadingLine() {
        #expect(StatusLine.loading(IndicatorState(isAnimating: true), tick: 0) == "⠋ loading")
        #expect(
            StatusLine.loading(IndicatorState(isAnimating: true, receivedSize: 2048, totalSize: 4096), tick: 1)
                == "⠙ loading 50% (2 KB of 4 KB)")
        #expect(
            StatusLine.loading(IndicatorState(isAnimating: true, receivedSize: 1500), tick: 10) == "⠋ loading 2 KB")
    }

    @Test("a long line is cut with an ellipsis")
    func fitted() {
        #expect(StatusLine.fitted("abcdef", width: 4) == "abc…")
        #expect(StatusLine.fitted("abc", width: 4) == "abc")
        #expect(StatusLine.fitted("abc", width: 0) == "")
    }

    @Test("blending moves each byte the fraction of the way")
    func blend() {
        #expect(PixelBlend.mix([0, 100, 255], [200, 100, 55], fraction: 0.5) == [100, 100, 155])
        #expect(PixelBlend.mix([0, 0], [10, 20], fraction: 0) == [0, 0])
        #expect(PixelBlend.mix([0, 0], [10, 20], fraction: 1) == [10, 20])
        #expect(PixelBlend.mix([0], [10, 20], fraction: 0.5) == [10, 20])
    }
}
