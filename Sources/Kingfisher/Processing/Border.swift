public import Foundation

/// A border stroked inside an image's edges, optionally with rounded corners.
public struct Border: Sendable, Hashable {
    /// The stroke colour. `.black` by default.
    public var color: KFCrossPlatformColor
    /// The stroke width in points. `4` by default.
    public var lineWidth: CGFloat
    /// The corner radius of the stroke. `.point(0)` (square corners) by default.
    public var radius: Radius
    /// Which corners are rounded. `.all` by default.
    public var roundingCorners: RectCorner

    public init(
        color: KFCrossPlatformColor = .black,
        lineWidth: CGFloat = 4,
        radius: Radius = .point(0),
        roundingCorners: RectCorner = .all
    ) {
        self.color = color
        self.lineWidth = lineWidth
        self.radius = radius
        self.roundingCorners = roundingCorners
    }

    var identifier: String {
        "\(color.hex)_\(lineWidth)_\(radius.radiusIdentifier)\(roundingCorners.cornerIdentifier)"
    }
}
