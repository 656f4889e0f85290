/// The indicator of ``IndicatorType/activity``: a spinner with download progress, as a model a view draws.
///
/// A view reads ``state`` and sets ``onChange`` to redraw (a terminal view turns its spinner while
/// ``IndicatorState/isAnimating`` and prints ``IndicatorState/fractionCompleted``).
public final class ActivityIndicator: Indicator {
    private let model = IndicatorModel()

    public init() {}

    /// What to show now.
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
