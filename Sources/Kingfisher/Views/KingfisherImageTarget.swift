/// Anything that can show an image: the platform-neutral form of Kingfisher's `UIImageView` extensions. Conform a
import KingfisherLocking
/// view, get `target.kf.setImage(with:)` with Kingfisher's placeholder, indicator and transition rules.
///
/// ```swift
/// final class Thumbnail: KingfisherImageTarget {
///     let kingfisherState = KingfisherTargetState()
///     private let shown = Locked<KFCrossPlatformImage?>(nil)
///     var image: KFCrossPlatformImage? {
///         get { shown.withLock { $0 } }
///         set { shown.withLock { $0 = newValue }; redraw() }
///     }
/// }
/// thumbnail.kf.indicatorType = .activity
/// thumbnail.kf.setImage(with: url, placeholder: grey, options: [.transition(.fade(0.2))])
/// ```
///
/// ## Where its methods run
/// Unlike Kingfisher on Apple platforms, nothing here is bound to the main actor or needs a running main loop, so
/// targets work in a command-line tool or a server. Instead, Kingfisher calls one target's methods (and its
/// placeholder's and indicator's) **one at a time, in order, never concurrently**: on the thread of the event —
/// the `setImage` caller's thread for the placeholder and the indicator's start, the options' `callbackQueue`
/// (`.untouch`, the thread that finished the work, by default) for the result — or, when another call for the
/// same target is under way, right after it on that call's thread. Completion handlers run the same way, after
/// the target was updated. A target that must draw on a particular thread or actor hops there itself, or binds
/// all of Kingfisher's calls (and `setImage`'s progress and completion handlers) to that thread with
/// `KingfisherTargetState(performingCallsWith:)`, as a view on a UI toolkit's main loop does (Kingfisher's views
/// run on the main queue). It must be `Sendable`: guard its state with a lock (`Mutex`), because your own code
/// may touch it too.
///
/// ## Lifetime
/// A load does not keep its target alive (Kingfisher's does). When a target goes away mid-load, its download
/// is cancelled, nothing is set, and the completion handler is still called once, with
/// ``KingfisherError/ImageSettingErrorReason/notCurrentSourceTask(result:error:source:)``.
public protocol KingfisherImageTarget: KingfisherCompatible, Sendable {
    /// Kingfisher's bookkeeping for this target: declare `let kingfisherState = KingfisherTargetState()`.
    var kingfisherState: KingfisherTargetState { get }

    /// The image shown now. Kingfisher sets the loaded image, an image placeholder or `onFailureImage` here, and
    /// `nil` to clear it when a load starts with no placeholder (unless `keepCurrentImageWhileLoading`).
    var image: KFCrossPlatformImage? { get set }

    /// Starts showing `indicator`, set through `kf.indicatorType`; it is started and stopped with each load.
    /// Does nothing by default.
    func addIndicator(_ indicator: any Indicator)

    /// Stops showing `indicator`, replaced through `kf.indicatorType`. Does nothing by default.
    func removeIndicator(_ indicator: any Indicator)

    /// Goes from `oldImage` (what was shown before the placeholder was removed: the placeholder image or the
    /// kept image; `nil` for nothing) to `newImage` with `transition`, leaving ``image`` set to `newImage`, then
    /// calls `completion` once with whether the transition finished.
    ///
    /// By default there is no animation: a ``ImageTransition/custom(duration:animations:completion:)`` runs its
    /// `animations` (or sets the image when it has none), any other transition sets the image, and `completion`
    /// gets `true` at once. A view that animates (a terminal view blending a few frames) replaces this.
    func transition(
        _ transition: ImageTransition, from oldImage: KFCrossPlatformImage?, to newImage: KFCrossPlatformImage,
        completion: @escaping @Sendable (Bool) -> Void)
}

extension KingfisherImageTarget {
    public func addIndicator(_ indicator: any Indicator) {}

    public func removeIndicator(_ indicator: any Indicator) {}

    public func transition(
        _ transition: ImageTransition, from oldImage: KFCrossPlatformImage?, to newImage: KFCrossPlatformImage,
        completion: @escaping @Sendable (Bool) -> Void
    ) {
        if case .custom(_, let animations?, _) = transition {
            animations(self, newImage)
        } else {
            image = newImage
        }
        completion(true)
    }
}
