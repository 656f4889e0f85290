public import Foundation

/// Mixes a colour into images: `fraction` 0 gives the solid colour, 1 the unchanged image. Alpha is kept.
public struct OverlayImageProcessor: ImageProcessor {
    public let identifier: String
    /// The colour mixed in (its own alpha is not used; `fraction` sets the mix).
    public let overlay: KFCrossPlatformColor
    /// How much of the image is kept, 0...1. `0.5` by default.
    public let fraction: CGFloat

    public init(overlay: KFCrossPlatformColor, fraction: CGFloat = 0.5) {
        self.overlay = overlay
        self.fraction = fraction
        identifier = "com.onevcat.Kingfisher.OverlayImageProcessor(\(overlay.hex)_\(fraction))"
    }

    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        processImage(item, options) { image throws(VipsError) in try image.overlaying(with: overlay, fraction: fraction)
        }
    }
}
