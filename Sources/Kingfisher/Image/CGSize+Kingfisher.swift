public import Foundation

extension CGSize: KingfisherCompatibleValue {}

extension KingfisherWrapper where Base == CGSize {
    /// This size resized against `size`: exactly `size` (`.none`), the largest size of this aspect ratio inside it
    /// (`.aspectFit`), or the smallest that covers it (`.aspectFill`). Lengths are rounded to whole points.
    public func resize(to size: CGSize, for contentMode: ContentMode) -> CGSize {
        switch contentMode {
        case .none: size
        case .aspectFit: constrained(size)
        case .aspectFill: filling(size)
        }
    }

    /// The largest size with this size's aspect ratio that fits inside `size`, rounded to whole points.
    public func constrained(_ size: CGSize) -> CGSize {
        let widthForHeight = (ratio * size.height).rounded()
        return widthForHeight > size.width
            ? CGSize(width: size.width, height: (size.width / ratio).rounded())
            : CGSize(width: widthForHeight, height: size.height)
    }

    /// The smallest size with this size's aspect ratio that covers `size`, rounded to whole points.
    public func filling(_ size: CGSize) -> CGSize {
        let widthForHeight = (ratio * size.height).rounded()
        return widthForHeight < size.width
            ? CGSize(width: size.width, height: (size.width / ratio).rounded())
            : CGSize(width: widthForHeight, height: size.height)
    }

    /// The rectangle of `size` placed inside this size at `anchor` (each axis clamped to 0...1: `(0, 0)` top left,
    /// `(1, 1)` bottom right), clipped to this size — the area ``CroppingImageProcessor`` keeps.
    public func constrainedRect(for size: CGSize, anchor: CGPoint) -> CGRect {
        func unit(_ value: CGFloat) -> CGFloat { value.isNaN ? 0 : min(max(value, 0), 1) }
        let x = unit(anchor.x) * (base.width - size.width)
        let y = unit(anchor.y) * (base.height - size.height)
        return CGRect(origin: .zero, size: base).intersection(
            CGRect(x: x, y: y, width: size.width, height: size.height))
    }

    /// Width over height; 1 for a height of 0.
    private var ratio: CGFloat { base.height == 0 ? 1 : base.width / base.height }
}
