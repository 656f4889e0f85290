public import Foundation

/// Resizes images against a reference size in points (pixels = points × the options' `scaleFactor`).
///
/// To shrink large downloads, prefer ``DownsamplingImageProcessor``: it decodes JPEG and WebP at reduced size.
public struct ResizingImageProcessor: ImageProcessor {
    public let identifier: String
    /// The reference size in points.
    public let referenceSize: CGSize
    /// How the image relates to `referenceSize`. With `.aspectFit` or `.aspectFill` the output may differ from
    /// `referenceSize` in one dimension; append a ``CroppingImageProcessor`` for an exact size.
    public let targetContentMode: ContentMode

    public init(referenceSize: CGSize, mode: ContentMode = .none) {
        self.referenceSize = referenceSize
        self.targetContentMode = mode
        identifier =
            mode == .none
            ? "com.onevcat.Kingfisher.ResizingImageProcessor(\(referenceSize.identifierDescription))"
            : "com.onevcat.Kingfisher.ResizingImageProcessor(\(referenceSize.identifierDescription), \(mode))"
    }

    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        processImage(item, options) { image throws(VipsError) in
            guard let size = image.resizeTarget(referenceSize, for: targetContentMode) else { return nil }
            return try image.resizing(to: size)
        }
    }
}
