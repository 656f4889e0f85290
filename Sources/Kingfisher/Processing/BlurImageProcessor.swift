public import Foundation

/// Blurs images with a Gaussian of `blurRadius` points' standard deviation (at least 2 pixels, as Kingfisher).
public struct BlurImageProcessor: ImageProcessor {
    public let identifier: String
    /// The blur radius in points; multiplied by the options' `scaleFactor`.
    public let blurRadius: CGFloat

    public init(blurRadius: CGFloat) {
        self.blurRadius = blurRadius
        identifier = "com.onevcat.Kingfisher.BlurImageProcessor(\(blurRadius))"
    }

    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        processImage(item, options) { image throws(VipsError) in
            try image.blurring(radius: blurRadius * options.scaleFactor)
        }
    }
}
