public import Foundation

/// What a processor works on: an image, or data not yet decoded.
public enum ImageProcessItem: Sendable {
    case image(KFCrossPlatformImage)
    case data(Data)
}

/// Turns an image (or image data) into another image, for example a thumbnail or a rounded avatar.
///
/// Processed images are cached under `key@identifier`, so the identifier must change whenever the output would.
/// Processors run on a background thread chosen by Kingfisher and may block it (libvips work is CPU-bound).
public protocol ImageProcessor: Sendable {
    /// A stable, unique description of what the processor does and with which parameters, e.g.
    /// `com.onevcat.Kingfisher.RoundCornerImageProcessor(20.0)`. `""` is the default processor.
    var identifier: String { get }

    /// Processes `item`; `nil` when it cannot (the retrieval then fails with `processingFailed`).
    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage?
}

/// Decodes data with the options' scale and frame settings; passes images through at the options' scale.
/// Its identifier is `""`, so images it produces are cached under their plain key.
public struct DefaultImageProcessor: ImageProcessor {
    public static let `default` = DefaultImageProcessor()

    public let identifier = ""

    public init() {}

    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        switch item {
        case .image(let image):
            image.kf.scaled(to: options.scaleFactor)
        case .data(let data):
            KingfisherWrapper<KFCrossPlatformImage>.image(data: data, options: options.imageCreatingOptions)
        }
    }
}
