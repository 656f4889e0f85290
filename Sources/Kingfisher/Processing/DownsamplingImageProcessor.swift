public import Foundation

/// Decodes data straight to a smaller image that fits in `size` points (× the options' `scaleFactor`), keeping
/// the aspect ratio and never enlarging.
///
/// JPEG and WebP are shrunk while decoding (libvips' shrink-on-load), so a 6000 × 4000 photo never exists in
/// memory at full size. Images given as `.image` are resized instead. Animated data gives its first frame, as in
/// Kingfisher.
public struct DownsamplingImageProcessor: ImageProcessor {
    public let identifier: String
    /// The size, in points, the image must fit in.
    public let size: CGSize

    public init(size: CGSize) {
        self.size = size
        identifier = "com.onevcat.Kingfisher.DownsamplingImageProcessor(\(size.identifierDescription))"
    }

    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        guard size.width > 0, size.height > 0 else { return nil }
        switch item {
        case .image(let image):
            return ProcessingFailure.catching { () throws(VipsError) in
                try image.kf.scaled(to: options.scaleFactor).downsampling(toFit: size)
            }
        case .data(let data):
            return KingfisherWrapper<KFCrossPlatformImage>.downsampledImage(
                data: data, to: size, scale: options.scaleFactor)
        }
    }
}
