public import Foundation

/// Cuts out a `size`-point rectangle positioned by `anchor`.
public struct CroppingImageProcessor: ImageProcessor {
    public let identifier: String
    /// The size of the output in points (clipped to the image).
    public let size: CGSize
    /// Where the rectangle sits, 0...1 on each axis: `(0, 0)` top left, `(0.5, 0.5)` centre (the default),
    /// `(1, 1)` bottom right. On a 100 × 100 image a 20 × 20 crop at `(0.5, 0.5)` is `{40, 40, 20, 20}`.
    public let anchor: CGPoint

    public init(size: CGSize, anchor: CGPoint = CGPoint(x: 0.5, y: 0.5)) {
        self.size = size
        self.anchor = anchor
        identifier =
            "com.onevcat.Kingfisher.CroppingImageProcessor(\(size.identifierDescription)_\(anchor.identifierDescription))"
    }

    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        processImage(item, options) { image throws(VipsError) in try image.cropping(to: size, anchorOn: anchor) }
    }
}
