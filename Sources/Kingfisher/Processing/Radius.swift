public import Foundation

/// A corner radius: fixed, or a fraction of the image's width or height.
public enum Radius: Sendable, Hashable {
    /// A fraction of the width: `0.5` on a square image makes a circle.
    case widthFraction(CGFloat)
    /// A fraction of the height.
    case heightFraction(CGFloat)
    /// A fixed radius in points.
    case point(CGFloat)

    /// The radius in points for content of `size` (points).
    public func compute(with size: CGSize) -> CGFloat {
        switch self {
        case .point(let point): point
        case .widthFraction(let fraction): size.width * fraction
        case .heightFraction(let fraction): size.height * fraction
        }
    }

    var radiusIdentifier: String {
        switch self {
        case .widthFraction(let fraction): "w_frac_\(fraction)"
        case .heightFraction(let fraction): "h_frac_\(fraction)"
        case .point(let point): point.description
        }
    }
}
