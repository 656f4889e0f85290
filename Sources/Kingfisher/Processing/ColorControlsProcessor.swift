public import Foundation

/// Brightness, contrast, saturation and exposure with Core Image's meanings (`CIColorControls` then
/// `CIExposureAdjust`), computed in linear-light sRGB like Core Image's default working space:
/// - `brightness`: added to each channel; 0 leaves the image unchanged, ±1 spans the range.
/// - `contrast`: `(c − 0.5) × contrast + 0.5`; 1 leaves it unchanged.
/// - `saturation`: 0 is the luminance grey (Rec. 709 weights), 1 unchanged, above 1 more saturated.
/// - `inputEV`: exposure in stops, a factor of `2^inputEV`; 0 leaves it unchanged.
/// Alpha is kept; colours are adjusted unpremultiplied.
public struct ColorControlsProcessor: ImageProcessor {
    public let identifier: String
    public let brightness: CGFloat
    public let contrast: CGFloat
    public let saturation: CGFloat
    public let inputEV: CGFloat

    public init(brightness: CGFloat, contrast: CGFloat, saturation: CGFloat, inputEV: CGFloat) {
        self.brightness = brightness
        self.contrast = contrast
        self.saturation = saturation
        self.inputEV = inputEV
        identifier = "com.onevcat.Kingfisher.ColorControlsProcessor(\(brightness)_\(contrast)_\(saturation)_\(inputEV))"
    }

    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        processImage(item, options) { image throws(VipsError) in
            try image.adjusting(brightness: brightness, contrast: contrast, saturation: saturation, inputEV: inputEV)
        }
    }
}
