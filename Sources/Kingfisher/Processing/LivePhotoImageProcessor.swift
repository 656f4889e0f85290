import Foundation

/// The processor of Live Photo downloads (internal, as in Kingfisher): it does not decode the bytes (a video is
/// not an image), so the download stays raw data; its identifier keys the cache files.
struct LivePhotoImageProcessor: ImageProcessor {
    static let `default` = LivePhotoImageProcessor()

    let identifier = "com.onevcat.Kingfisher.LivePhotoImageProcessor"

    /// What a download of data yields instead of an image: one transparent pixel (Kingfisher: an empty image).
    private static let placeholder = try? KFCrossPlatformImage(rgbaPixels: [0, 0, 0, 0], width: 1, height: 1)

    private init() {}

    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        switch item {
        case .image(let image): image
        case .data: Self.placeholder
        }
    }

    /// `options` with this processor: the default processor is replaced silently; any other is replaced too, as
    /// Kingfisher does in release builds (its debug builds stop on an assertion).
    static func options(_ options: KingfisherParsedOptionsInfo) -> KingfisherParsedOptionsInfo {
        var checked = options
        checked.processor = LivePhotoImageProcessor.default
        return checked
    }
}
