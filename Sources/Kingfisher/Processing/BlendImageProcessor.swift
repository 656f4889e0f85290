public import Foundation

/// Draws images with a blend mode and alpha onto a background colour (transparent when `nil`).
public struct BlendImageProcessor: ImageProcessor {
    public let identifier: String
    public let blendMode: BlendMode
    /// The image's opacity, 0...1. `1` by default.
    public let alpha: CGFloat
    /// The colour below the image; `nil` (the default) is transparent.
    public let backgroundColor: KFCrossPlatformColor?

    public init(blendMode: BlendMode, alpha: CGFloat = 1.0, backgroundColor: KFCrossPlatformColor? = nil) {
        self.blendMode = blendMode
        self.alpha = alpha
        self.backgroundColor = backgroundColor
        identifier =
            "com.onevcat.Kingfisher.BlendImageProcessor(\(blendMode.rawValue),\(alpha))"
            + (backgroundColor.map { "_\($0.hex)" } ?? "")
    }

    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        processImage(item, options) { image throws(VipsError) in
            try image.blending(mode: blendMode, alpha: alpha, backgroundColor: backgroundColor)
        }
    }
}
