public import Foundation

/// Progressive JPEG previews, Kingfisher's `.progressiveJPEG` option: while a progressive JPEG downloads, each newly
/// completed scan is decoded into a preview and handed to the image target (or ``onImageUpdated``, or an
/// ``ImageRetrievalTask``'s ``ImageRetrievalTask/previews``) before the final image.
///
/// ```swift
/// let progressive = ImageProgressive(isBlur: false, isFastestScan: true, scanInterval: 0.2)
/// progressive.onImageUpdated.delegate(on: self) { (self, preview) in
///     self.previewCount += 1
///     return .default
/// }
/// target.kf.setImage(with: url, options: [.progressiveJPEG(progressive)])
/// ```
///
/// Only progressive (SOF2, or arithmetic-coded SOF10) JPEGs downloaded over HTTP get previews; a baseline JPEG,
/// another format, an image from a cache or from an ``ImageDataProvider`` gets none. No preview is delivered after
/// the final image, and none after the load was cancelled.
///
/// - Note: Unlike Kingfisher, which decodes every preview at full size, a preview with the default processor is
///   decoded at a reduced size (long side at most ``previewPixelSize`` pixels, shrunk on load) with its `scale`
///   lowered so that its `size` in points is the final image's: a preview of a 5120 × 2880 photo costs a few
///   milliseconds instead of a full decode. With another processor the preview is that processor's output for the
///   bytes received so far, as in Kingfisher (a ``DownsamplingImageProcessor`` shrinks it on load).
public struct ImageProgressive: Sendable {
    /// What to do with a preview that is about to be shown on an image target; ``ImageProgressive/onImageUpdated``'s
    /// answer.
    public enum UpdatingStrategy: Sendable {
        /// Show the preview.
        case `default`
        /// Keep what the target shows now; the preview is dropped.
        case keepCurrent
        /// Show this image instead (`nil` clears the target's image).
        case replace(KFCrossPlatformImage?)
    }

    /// Blurred previews from the fastest scan, with no minimum interval: the same as ``init()``.
    @available(*, deprecated, message: "Use `ImageProgressive()` instead.", renamed: "init()")
    public static let `default` = ImageProgressive(isBlur: true, isFastestScan: true, scanInterval: 0)

    /// The long side, in pixels, of a preview made with the default processor (unless the image is smaller). Ours.
    public static let previewPixelSize = 512

    /// Whether previews are blurred: strongly for the first scan, less for each later one, not at all from the
    /// fifth completed scan on.
    public var isBlur: Bool

    /// Whether a preview always shows the newest completed scan. When several scans completed since the last
    /// preview (a fast network, a slow decode or a long `scanInterval`), `true` skips to the newest; `false`
    /// decodes every scan in turn.
    public var isFastestScan: Bool

    /// The least time, in seconds, between the end of one preview's decode and the start of the next.
    public var scanInterval: TimeInterval

    /// Called with each preview before it is shown; its answer says what an image target shows. Without an image
    /// target (``KingfisherManager``, ``ImageDownloader``, an ``ImageRetrievalTask``) it is still called, and its
    /// answer is ignored.
    ///
    /// It runs where the target's calls run (see ``KingfisherImageTarget``); without a target, on the options'
    /// `callbackQueue` (the `async` APIs: the thread that decoded the preview). It holds its owner weakly (see
    /// ``Delegate``), and it is shared by every copy of this value.
    public let onImageUpdated = Delegate<KFCrossPlatformImage, UpdatingStrategy>()

    /// Blurred previews from the fastest scan, with no minimum interval.
    public init() {
        self.init(isBlur: true, isFastestScan: true, scanInterval: 0)
    }

    /// - Parameters:
    ///   - isBlur: whether previews are blurred (see ``isBlur``).
    ///   - isFastestScan: whether to skip to the newest completed scan (see ``isFastestScan``).
    ///   - scanInterval: the least time between two previews, in seconds.
    public init(isBlur: Bool, isFastestScan: Bool, scanInterval: TimeInterval) {
        self.isBlur = isBlur
        self.isFastestScan = isFastestScan
        self.scanInterval = scanInterval
    }
}
