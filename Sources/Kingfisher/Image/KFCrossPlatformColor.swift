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
