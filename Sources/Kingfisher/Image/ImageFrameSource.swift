public import Foundation

/// The frames of an animated image, from wherever they come: give one to
/// ``KingfisherWrapper/animatedImage(source:options:baseImage:)`` to make an animated image of its frames.
///
/// ```swift
/// struct Spinner: ImageFrameSource {
///     let frames: [KFCrossPlatformImage]
///     var data: Data? { nil }
///     var frameCount: Int { frames.count }
///     func frame(at index: Int, maxSize: CGSize?) -> KFCrossPlatformImage? { frames.indices.contains(index) ? frames[index] : nil }
///     func duration(at index: Int) -> TimeInterval { 0.05 }
/// }
/// let image = KingfisherWrapper<KFCrossPlatformImage>.animatedImage(source: Spinner(frames: frames), options: .init())
/// ```
///
/// - Note: Kingfisher's frames are `CGImage`s, which Linux has not; here they are ``KFCrossPlatformImage``s (the first
///   frame of an animated one is used). The protocol is `Sendable` because images here are shared between threads.
public protocol ImageFrameSource: Sendable {
    /// The data the frames come from, if any; it becomes the image's `kf.animatedImageData`.
    var data: Data? { get }

    /// How many frames there are.
    var frameCount: Int { get }

    /// The frame at `index`, no larger than `maxSize` when one is given; `nil` for an index out of range.
    func frame(at index: Int, maxSize: CGSize?) -> KFCrossPlatformImage?

    /// Seconds the frame at `index` is shown; 0 for an index out of range.
    func duration(at index: Int) -> TimeInterval

    /// A copy of the source, for a second consumer of its frames. The default returns `self`.
    func copy() -> Self
}

extension ImageFrameSource {
    /// The frame at `index` at its own size.
    public func frame(at index: Int) -> KFCrossPlatformImage? {
        frame(at: index, maxSize: nil)
    }

    public func copy() -> Self { self }
}
