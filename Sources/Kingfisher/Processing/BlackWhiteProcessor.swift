import Foundation

/// Black and white, as Kingfisher makes it: saturation 0 with exposure raised by 0.7 stops
/// (`ColorControlsProcessor(brightness: 0, contrast: 1, saturation: 0, inputEV: 0.7)`).
public struct BlackWhiteProcessor: ImageProcessor {
    public let identifier = "com.onevcat.Kingfisher.BlackWhiteProcessor"

    public init() {}

    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        ColorControlsProcessor(brightness: 0, contrast: 1, saturation: 0, inputEV: 0.7).process(
            item: item, options: options)
    }
}
