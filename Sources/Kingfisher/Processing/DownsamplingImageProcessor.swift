public import Foundation

/// Decodes data straight to a smaller image whose longer side is at most the longer side of `size` (in points,
/// × the options' `scaleFactor`), keeping the aspect ratio and never enlarging: Kingfisher's rule (ImageIO's
/// thumbnail maximum pixel size), so `CGSize(width: 100, height: 50)` makes a 400 × 300 photo 100 × 75. A size
/// of `.zero` keeps the full image, as Kingfisher on iOS 17.4 / macOS 14.4 and later.
///
/// JPEG and WebP are shrunk while decoding (libvips' shrink-on-load), so a 6000 × 4000 photo never exists in
/// memory at full size. Images given as `.image` are resized to the same size instead (every frame of an
/// animation; Kingfisher keeps only the first). Animated data gives its first frame, as in Kingfisher.
public struct DownsamplingImageProcessor: ImageProcessor {
    public let identifier: String
    /// The size, in points, the image must fit in.
    public let size: CGSize

    public init(size: CGSize) {
        self.size = size
        identifier = "com.onevcat.Kingfisher.DownsamplingImageProcessor(\(size.identifierDescription))"
    }

    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        guard !size.width.isNaN, !size.height.isNaN else { return nil }
        let side = max(size.width, size.height)
        switch item {
        case .image(let image):
            let scaled = image.kf.scaled(to: options.scaleFactor)
            guard side > 0 else { return scaled }
            return ProcessingFailure.catching { () throws(VipsError) in
                try scaled.downsampling(toFit: CGSize(width: side, height: side))
            }
        case .data(let data):
            do {
                return try KingfisherWrapper<KFCrossPlatformImage>.downsampled(
                    data: data, to: size, scale: options.scaleFactor)
            } catch {
                // A limit refused the reduced image (an SVG drawn at the target size, say): that is the reason,
                // not what decoding the whole image would say.
                guard case .processorError(let reason) = error, !reason.meansNotAnImage else { return nil }
                return ProcessingFailure.fail(with: error)
            }
        }
    }
}
