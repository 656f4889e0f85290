public import Foundation

/// Shows that a target's image is loading. Kingfisher starts it when a load starts and stops it when the
/// target's current load ends, however it ends; a target shows it (see ``KingfisherImageTarget/addIndicator(_:)``).
///
/// Built in: ``ActivityIndicator`` (a spinner with progress) and ``ImageIndicator`` (an image, often animated).
/// Both are models with no drawing of their own: a view reads their ``IndicatorState`` and is told of changes.
/// Set one with ``IndicatorType`` on `target.kf.indicatorType`.
public protocol Indicator: Sendable {
    /// Starts showing activity. Called when a load starts; may be called again while already animating.
    func startAnimatingView()
    /// Stops showing activity. Called when the target's current load ends.
    func stopAnimatingView()
    /// Download progress of the current load: bytes received so far and the expected total (`0` or less when
    /// unknown). Does nothing by default.
    func updateProgress(receivedSize: Int64, totalSize: Int64)
    /// Where the indicator sits relative to the target's centre, in points. `.zero` by default.
    var centerOffset: CGPoint { get }
}

extension Indicator {
    public func updateProgress(receivedSize: Int64, totalSize: Int64) {}

    public var centerOffset: CGPoint { .zero }
}
