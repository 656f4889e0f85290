/// A set of rectangle corners, for rounding some corners only.
public struct RectCorner: OptionSet, Sendable, Hashable {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    public static let topLeft = RectCorner(rawValue: 1 << 0)
    public static let topRight = RectCorner(rawValue: 1 << 1)
    public static let bottomLeft = RectCorner(rawValue: 1 << 2)
    public static let bottomRight = RectCorner(rawValue: 1 << 3)
    public static let all: RectCorner = [.topLeft, .topRight, .bottomLeft, .bottomRight]

    /// `""` for all corners, `_corner(n)` otherwise, as in Kingfisher's identifiers.
    var cornerIdentifier: String {
        self == .all ? "" : "_corner(\(rawValue))"
    }
}
