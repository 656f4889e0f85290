import Foundation
import Kingfisher
import XCTest

/// `KFCrossPlatformColor(white:alpha:)` and `(displayP3Red:green:blue:alpha:)`, converted to sRGB.
final class KFCrossPlatformColorConveniencesTests: XCTestCase {
    private func assertColor(
        _ color: KFCrossPlatformColor, _ expected: [CGFloat], accuracy: CGFloat = 0.002, line: UInt = #line
    ) {
        let actual = [color.red, color.green, color.blue, color.alpha]
        for (value, wanted) in zip(actual, expected) {
            XCTAssertEqual(value, wanted, accuracy: accuracy, "\(actual) vs \(expected)", line: line)
        }
    }

    func testWhiteIsAGrey() {
        assertColor(KFCrossPlatformColor(white: 0.25, alpha: 0.5), [0.25, 0.25, 0.25, 0.5], accuracy: 0)
        XCTAssertEqual(KFCrossPlatformColor(white: 1, alpha: 1), .white)
    }

    func testDisplayP3IsConvertedToSRGB() {
        // sRGB's red is (0.9175, 0.2003, 0.1386) in Display P3 (CSS Color 4's conversion)
        assertColor(KFCrossPlatformColor(displayP3Red: 0.9175, green: 0.2003, blue: 0.1386, alpha: 1), [1, 0, 0, 1])
        // The same white point: greys do not change
        assertColor(KFCrossPlatformColor(displayP3Red: 0.5, green: 0.5, blue: 0.5, alpha: 0.3), [0.5, 0.5, 0.5, 0.3])
        // A colour inside both gamuts moves by the primaries' difference
        assertColor(
            KFCrossPlatformColor(displayP3Red: 0.5, green: 0.25, blue: 0.75, alpha: 1), [0.5378, 0.2321, 0.7771, 1])
        // P3's own red is outside sRGB: clipped to the edge
        assertColor(KFCrossPlatformColor(displayP3Red: 1, green: 0, blue: 0, alpha: 1), [1, 0, 0, 1])
    }
}
