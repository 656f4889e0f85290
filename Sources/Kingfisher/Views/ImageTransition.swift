public import Foundation

/// How an image target goes from what it shows to a newly loaded image, set with the `.transition` option.
///
/// The target draws it (see ``KingfisherImageTarget/transition(_:from:to:completion:)``): this type only says which
/// one and for how long, so a terminal view can blend a few frames where a GUI would animate layers. By default a
/// transition runs only for an image that was downloaded or provided, not for one found in a cache; the
/// `.forceTransition` option runs it always.
///
/// ```swift
/// target.kf.setImage(with: url, options: [.transition(.fade(0.25))])
/// ```
public enum ImageTransition: Sendable {
    /// No transition: the image is set at once. The default.
    case none
    /// Cross-fade from the old image to the new one over the duration, in seconds.
    case fade(TimeInterval)
    /// Flip around the vertical axis, the left edge coming forward, over the duration.
    case flipFromLeft(TimeInterval)
    /// Flip around the vertical axis, the right edge coming forward, over the duration.
    case flipFromRight(TimeInterval)
    /// Flip around the horizontal axis, the top edge coming forward, over the duration.
    case flipFromTop(TimeInterval)
    /// Flip around the horizontal axis, the bottom edge coming forward, over the duration.
    case flipFromBottom(TimeInterval)
    /// Your own transition. `animations` is called with the target and the new image and should set the image
    /// (when `nil`, the target's own way of showing an image runs); `completion` is called when the target says
    /// the transition ended, with whether it finished. Unlike Kingfisher there are no `UIView.AnimationOptions`.
    case custom(
        duration: TimeInterval,
        animations: (@Sendable (any KingfisherImageTarget, KFCrossPlatformImage) -> Void)?,
        completion: (@Sendable (Bool) -> Void)?
    )

    /// How long the transition lasts, in seconds; `0` for ``none``.
    public var duration: TimeInterval {
        switch self {
        case .none: 0
        case .fade(let duration), .flipFromLeft(let duration), .flipFromRight(let duration),
            .flipFromTop(let duration), .flipFromBottom(let duration):
            duration
        case .custom(let duration, _, _): duration
        }
    }

    /// Whether this is ``none``.
    public var isNone: Bool {
        if case .none = self { return true }
        return false
    }
}
