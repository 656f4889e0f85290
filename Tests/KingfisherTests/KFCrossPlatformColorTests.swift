import Foundation
import Kingfisher
import Testing

@Suite struct KFCrossPlatformColorTests {
    @Test func parsesEveryHexForm() throws {
        #expect(try #require(KFCrossPlatformColor(hex: "#ff8000")).rgba8 == [255, 128, 0, 255])
        #expect(try #require(KFCrossPlatformColor(hex: "FF800080")).rgba8 == [255, 128, 0, 128])
        #expect(try #require(KFCrossPlatformColor(hex: "#f80")).rgba8 == [255, 136, 0, 255])
        #expect(try #require(KFCrossPlatformColor(hex: "#f808")).rgba8 == [255, 136, 0, 136])
    }

    @Test func rejectsMalformedHex() {
        for text in ["", "#", "#12", "#12345", "#1234567", "#ggg", "#123456789", "0x123456"] {
            #expect(KFCrossPlatformColor(hex: text) == nil, "\(text)")
        }
    }

    @Test func hexRoundTripsAndNamedColours() throws {
        #expect(KFCrossPlatformColor.white.hex == "#ffffffff")
        #expect(KFCrossPlatformColor.clear.hex == "#00000000")
        #expect(KFCrossPlatformColor.black.rgba8 == [0, 0, 0, 255])
        let colour = KFCrossPlatformColor(red: 0.2, green: 0.4, blue: 0.6, alpha: 0.8)
        #expect(try #require(KFCrossPlatformColor(hex: colour.hex)).rgba8 == colour.rgba8)
    }

    @Test func clampsComponents() {
        let colour = KFCrossPlatformColor(red: 2, green: -1, blue: .nan, alpha: 0.5)
        #expect(colour.rgba8 == [255, 0, 0, 128])
    }
}
