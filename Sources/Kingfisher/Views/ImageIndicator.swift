public import Foundation

/// The indicator of ``IndicatorType/image(imageData:)``: an image (an animated one plays) shown while loading,
/// as a model a view draws.
public final class ImageIndicator: Indicator {
    private let model = IndicatorModel()

    /// The image to show, every frame of an animated one decoded.
    public let image: KFCrossPlatformImage

    /// An indicator showing the image in `imageData`; `nil` when the data does not decode.
    public init?(imageData: Data) {
        let options = ImageCreatingOptions(scale: 1, duration: 0, preloadAll: true, onlyFirstFrame: false)
        guard let image = KingfisherWrapper<KFCrossPlatformImage>.animatedImage(data: imageData, options: options)
        else { return nil }
        self.image = image
    }

    /// Whether to show it now, and the progress of the load.
    public var state: IndicatorState { model.state }

    /// Called with the new state after each change, on the thread that made it. `nil` by default.
    public var onChange: (@Sendable (IndicatorState) -> Void)? {
        get { model.onChange }
        set { model.onChange = newValue }
    }

    public func startAnimatingView() { model.start() }

    public func stopAnimatingView() { model.stop() }

    public func updateProgress(receivedSize: Int64, totalSize: Int64) {
        model.progress(receivedSize: receivedSize, totalSize: totalSize)
    }
}
