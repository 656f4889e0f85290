/// Composites a colour over images (source-over, as Core Image's tint): the colour's alpha sets the strength.
public struct TintImageProcessor: ImageProcessor {
    public let identifier: String
    /// The tint colour; use a translucent colour for a partial tint.
    public let tint: KFCrossPlatformColor

    public init(tint: KFCrossPlatformColor) {
        self.tint = tint
        identifier = "com.onevcat.Kingfisher.TintImageProcessor(\(tint.hex))"
    }

    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        processImage(item, options) { image throws(VipsError) in try image.tinting(with: tint) }
    }
}
