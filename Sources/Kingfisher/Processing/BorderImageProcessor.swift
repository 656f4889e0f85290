/// Strokes a ``Border`` inside the image's edges.
public struct BorderImageProcessor: ImageProcessor {
    public var identifier: String { "com.onevcat.Kingfisher.BorderImageProcessor(\(border.identifier))" }
    /// The border to draw.
    public let border: Border

    public init(border: Border) {
        self.border = border
    }

    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        processImage(item, options) { image throws(VipsError) in try image.bordering(border) }
    }
}
