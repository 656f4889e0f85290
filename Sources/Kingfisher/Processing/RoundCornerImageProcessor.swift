public import Foundation

/// Rounds an image's corners with anti-aliased edges; the output has alpha.
///
/// - Note: JPEG has no alpha. Cache round-cornered images with ``FormatIndicatedCacheSerializer/png`` (or give a
///   `backgroundColor`), or the corners come back filled after a disk round trip.
public struct RoundCornerImageProcessor: ImageProcessor {
    public let identifier: String
    /// The corner radius: points, or a fraction of the output's width or height.
    public let radius: Radius
    /// Which corners are rounded. `.all` by default.
    public let roundingCorners: RectCorner
    /// The output size in points; the image is stretched to it. `nil` (the default) keeps the image's size.
    public let targetSize: CGSize?
    /// The colour outside the rounded corners; `nil` (the default) leaves them transparent.
    public let backgroundColor: KFCrossPlatformColor?

    public init(
        cornerRadius: CGFloat,
        targetSize: CGSize? = nil,
        roundingCorners corners: RectCorner = .all,
        backgroundColor: KFCrossPlatformColor? = nil
    ) {
        self.init(
            radius: .point(cornerRadius), targetSize: targetSize, roundingCorners: corners,
            backgroundColor: backgroundColor)
    }

    public init(
        radius: Radius,
        targetSize: CGSize? = nil,
        roundingCorners corners: RectCorner = .all,
        backgroundColor: KFCrossPlatformColor? = nil
    ) {
        self.radius = radius
        self.targetSize = targetSize
        self.roundingCorners = corners
        self.backgroundColor = backgroundColor
        let sizePart = targetSize.map { "_\($0.identifierDescription)" } ?? ""
        let colourPart = backgroundColor.map { "_\($0.hex)" } ?? ""
        identifier =
            "com.onevcat.Kingfisher.RoundCornerImageProcessor(\(radius.radiusIdentifier)\(sizePart)\(corners.cornerIdentifier))"
            + colourPart
    }

    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        processImage(item, options) { image throws(VipsError) in
            try image.rounding(
                radius: radius, fit: targetSize ?? image.size, roundingCorners: roundingCorners,
                backgroundColor: backgroundColor)
        }
    }
}
