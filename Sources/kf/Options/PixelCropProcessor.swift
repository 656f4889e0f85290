import Foundation
import Kingfisher

/// `--crop WxH@x,y`: a crop whose top-left corner is a pixel position, clipped at the image's edges.
/// `CroppingImageProcessor` positions by a 0...1 anchor, which depends on the image's size; this works the anchor
/// out per image. An origin outside the image fails the source.
struct PixelCropProcessor: ImageProcessor {
    let width: Int
    let height: Int
    let x: Int
    let y: Int

    var identifier: String { "kf.PixelCropProcessor(\(width), \(height))@(\(x), \(y))" }

    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        guard let image = DefaultImageProcessor.default.process(item: item, options: options) else { return nil }
        let fullWidth = image.pixelWidth
        let fullHeight = image.pixelHeight
        guard x < fullWidth, y < fullHeight else {
            return ProcessingFailure.fail(
                because: VipsError(
                    operation: "crop",
                    message: "the crop's corner \(x),\(y) is outside the \(fullWidth) x \(fullHeight) image"))
        }
        let cropWidth = min(width, fullWidth - x)
        let cropHeight = min(height, fullHeight - y)
        let anchor = CGPoint(
            x: Self.anchor(offset: x, slack: fullWidth - cropWidth),
            y: Self.anchor(offset: y, slack: fullHeight - cropHeight))
        let points = CGSize(width: CGFloat(cropWidth) / image.scale, height: CGFloat(cropHeight) / image.scale)
        return image.kf.crop(to: points, anchorOn: anchor)
    }

    private static func anchor(offset: Int, slack: Int) -> CGFloat {
        slack > 0 ? CGFloat(offset) / CGFloat(slack) : 0
    }
}
