public import Foundation

/// An sRGB colour with alpha, components in 0...1. The type Kingfisher calls `UIColor` or `NSColor` elsewhere.
public struct KFCrossPlatformColor: Sendable, Hashable {
    public let red: CGFloat
    public let green: CGFloat
    public let blue: CGFloat
    public let alpha: CGFloat

    /// Components outside 0...1 are clamped; NaN becomes 0.
    public init(red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat = 1) {
        func clamped(_ value: CGFloat) -> CGFloat { value.isNaN ? 0 : min(max(value, 0), 1) }
        self.red = clamped(red)
        self.green = clamped(green)
        self.blue = clamped(blue)
        self.alpha = clamped(alpha)
    }

    /// A grey: `white` for each of red, green and blue (0 black, 1 white), as `UIColor(white:alpha:)`.
    public init(white: CGFloat, alpha: CGFloat) {
        self.init(red: white, green: white, blue: white, alpha: alpha)
    }

    /// A Display P3 colour converted to sRGB, the space of every colour here, as `UIColor(displayP3Red:...)` gives
    /// it in sRGB: the P3 values are linearised, mapped to sRGB primaries (same D65 white), and encoded again.
    /// Colours outside sRGB (saturated P3 reds and greens) are clipped to its edge, which `UIColor` keeps as
    /// extended sRGB values below 0 or above 1.
    public init(displayP3Red red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat) {
        let p3 = [red, green, blue].map { Self.linear(min(max($0.isNaN ? 0 : $0, 0), 1)) }
        let matrix: [[CGFloat]] = [
            [1.224_940_2, -0.224_940_2, 0],
            [-0.042_057_0, 1.042_057_0, 0],
            [-0.019_637_6, -0.078_636_0, 1.098_273_6],
        ]
        let srgb = matrix.map { row in Self.encoded(zip(row, p3).map(*).reduce(0, +)) }
        self.init(red: srgb[0], green: srgb[1], blue: srgb[2], alpha: alpha)
    }

    /// The sRGB transfer function (shared by Display P3), inverted: encoded value to linear light.
    private static func linear(_ value: CGFloat) -> CGFloat {
        value <= 0.040_45 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
    }

    /// Linear light to an encoded sRGB value, clipped to 0...1.
    private static func encoded(_ value: CGFloat) -> CGFloat {
        let clipped = min(max(value, 0), 1)
        return clipped <= 0.003_130_8 ? clipped * 12.92 : 1.055 * pow(clipped, 1 / 2.4) - 0.055
    }

    /// Parses `#RGB`, `#RGBA`, `#RRGGBB` or `#RRGGBBAA` (the `#` is optional); `nil` for anything else.
    public init?(hex: String) {
        var digits = Substring(hex.trimmingCharacters(in: .whitespaces))
        if digits.hasPrefix("#") { digits = digits.dropFirst() }
        guard [3, 4, 6, 8].contains(digits.count), digits.allSatisfy(\.isHexDigit),
            var value = UInt32(digits, radix: 16)
        else { return nil }
        if digits.count <= 4 {
            // Short form: each digit stands for a repeated pair.
            var expanded: UInt32 = 0
            for shift in stride(from: (digits.count - 1) * 4, through: 0, by: -4) {
                let nibble = (value >> UInt32(shift)) & 0xF
                expanded = expanded << 8 | nibble << 4 | nibble
            }
            value = expanded
        }
        if digits.count == 3 || digits.count == 6 { value = value << 8 | 0xFF }
        self.init(
            red: CGFloat(value >> 24 & 0xFF) / 255,
            green: CGFloat(value >> 16 & 0xFF) / 255,
            blue: CGFloat(value >> 8 & 0xFF) / 255,
            alpha: CGFloat(value & 0xFF) / 255
        )
    }

    /// `#rrggbbaa` in lower case, the form Kingfisher puts in processor identifiers.
    public var hex: String {
        let value = rgba8.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let digits = String(value, radix: 16)
        return "#" + String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// The components as 0...255 bytes: red, green, blue, alpha.
    public var rgba8: [UInt8] {
        [red, green, blue, alpha].map { UInt8(($0 * 255).rounded()) }
    }

    public static let white = KFCrossPlatformColor(red: 1, green: 1, blue: 1)
    public static let black = KFCrossPlatformColor(red: 0, green: 0, blue: 0)
    public static let clear = KFCrossPlatformColor(red: 0, green: 0, blue: 0, alpha: 0)
    public static let red = KFCrossPlatformColor(red: 1, green: 0, blue: 0)
    public static let green = KFCrossPlatformColor(red: 0, green: 1, blue: 0)
    public static let blue = KFCrossPlatformColor(red: 0, green: 0, blue: 1)
}
