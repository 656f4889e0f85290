public import Foundation

/// Which indicator a target shows while loading: `target.kf.indicatorType = .activity`.
public enum IndicatorType: Sendable {
    /// No indicator. The default.
    case none
    /// An ``ActivityIndicator``: a spinner with download progress.
    case activity
    /// An ``ImageIndicator`` showing the image in `imageData` (an animated GIF or WebP plays). Data that does
    /// not decode gives no indicator.
    case image(imageData: Data)
    /// Your own indicator.
    case custom(indicator: any Indicator)

    /// A new indicator of this type; `nil` for ``none`` and for image data that does not decode.
    func makeIndicator() -> (any Indicator)? {
        switch self {
        case .none: nil
        case .activity: ActivityIndicator()
        case .image(let imageData): ImageIndicator(imageData: imageData)
        case .custom(let indicator): indicator
        }
    }
}
