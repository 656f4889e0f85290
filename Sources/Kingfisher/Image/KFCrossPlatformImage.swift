public import Foundation
import KingfisherLocking

/// An image in memory: decoded 8-bit sRGB pixels (with alpha when the source had it), a scale, and for an
/// animated image its frames and their timing. The type Kingfisher calls `UIImage` or `NSImage` elsewhere.
///
/// Pixels live in one block of memory owned by the image (libvips' `VipsImage`); an image never holds the
/// bytes it was decoded from, except the original data of an animated image (``KingfisherWrapper/animatedImageData``).
/// Images are immutable and safe to share between threads.
///
/// ```swift
/// let image = KFCrossPlatformImage(data: pngData, scale: 2)
/// print(image?.size)  // points: pixels / 2
/// ```
public final class KFCrossPlatformImage: Sendable {
    /// Frame count and timing of an animated image.
    struct Animation: Sendable, Equatable {
        let frameCount: Int
        /// Seconds each frame is shown, in playing order.
        let frameDurations: [TimeInterval]
        /// How many times the animation plays; 0 means forever.
        let loopCount: Int
    }

    /// The pixels: one frame, or every frame stacked top to bottom (libvips' `page-height` layout).
    var storage: VipsImageHandle { pixels ?? Self.emptyPixel }
    /// `nil` for ``isEmptyImage``, whose pixel is made on first use: an empty image (what a header check gives)
    /// does not start libvips.
    private let pixels: VipsImageHandle?
    /// The scale: pixels per point. 1 unless the image was created with another.
    public let scale: CGFloat
    let animation: Animation?
    /// Frames of the data a still image was taken from (the first frame of an animation, `onlyFirstFrame`).
    let sourceFrameCount: Int?
    /// The frame source an animated image was built from with `animatedImage(source:options:baseImage:)`.
    let frameSource: (any ImageFrameSource)?
    /// `KFCrossPlatformImage()`: no pixels. `storage` then holds one transparent pixel nobody reads.
    let isEmptyImage: Bool
    /// The format of the bytes the image was decoded from, for an image decoded from bytes; `nil` for one made
    /// otherwise (processed, drawn, built from pixels).
    package let decodedFormat: ImageFormat?
    private let originalAnimatedData: Locked<Data?>

    init(
        storage: VipsImageHandle?, scale: CGFloat, animation: Animation?, animatedImageData: Data?,
        sourceFrameCount: Int? = nil, frameSource: (any ImageFrameSource)? = nil, isEmptyImage: Bool = false,
        decodedFormat: ImageFormat? = nil
    ) {
        self.decodedFormat = decodedFormat
        self.pixels = isEmptyImage ? nil : storage
        self.scale = scale.isFinite && scale > 0 ? scale : 1
        self.animation = animation
        self.sourceFrameCount = sourceFrameCount
        self.frameSource = frameSource
        self.isEmptyImage = isEmptyImage
        self.originalAnimatedData = Locked(animatedImageData)
    }

    /// Width of one frame in pixels; 0 for an empty image.
    public var pixelWidth: Int { isEmptyImage ? 0 : storage.width }

    /// Height of one frame in pixels; 0 for an empty image.
    public var pixelHeight: Int { isEmptyImage ? 0 : animation == nil ? storage.height : storage.pageHeight }

    /// The size in points: pixel size divided by ``scale``.
    public var size: CGSize {
        CGSize(width: CGFloat(pixelWidth) / scale, height: CGFloat(pixelHeight) / scale)
    }

    /// Whether the pixels have an alpha channel.
    public var hasAlpha: Bool { storage.hasAlpha }

    /// The original bytes of an animated image, kept like Kingfisher keeps GIF data; settable so a processor
    /// can pass them on (see `copyKingfisherState(to:)`).
    var animatedImageData: Data? {
        get { originalAnimatedData.withLock { $0 } }
        set { originalAnimatedData.withLock { $0 = newValue } }
    }
}

extension KFCrossPlatformImage: KingfisherCompatible {}

extension KFCrossPlatformImage: Equatable {
    /// Identity, as `UIImage`'s `==` (`isEqual`) for images that were not made from the same data: two images are
    /// equal when they are the same object. Compare pixels with `kf.rgbaPixels()`.
    public static func == (lhs: KFCrossPlatformImage, rhs: KFCrossPlatformImage) -> Bool {
        lhs === rhs
    }
}

extension KingfisherWrapper where Base == KFCrossPlatformImage {
    /// The size in points.
    public var size: CGSize { base.size }

    /// Pixels per point.
    public var scale: CGFloat { base.scale }

    /// Bytes the image holds in memory: its decoded pixels (every frame), plus the original data an animated
    /// image keeps. Memory caches use this as the entry's cost.
    public var cost: Int {
        base.isEmptyImage ? 0 : base.storage.byteSize + (base.animatedImageData?.count ?? 0)
    }

    /// The frames of an animated image, each a still image at the same scale; `nil` for a still image, as
    /// `UIImage.images`. An animated GIF of one frame has one.
    public var images: [KFCrossPlatformImage]? {
        guard let animation = base.animation else { return nil }
        var frames: [KFCrossPlatformImage] = []
        frames.reserveCapacity(animation.frameCount)
        for index in 0..<animation.frameCount {
            guard let frame = try? base.storage.frame(index).materialised() else { return nil }
            frames.append(
                KFCrossPlatformImage(storage: frame, scale: base.scale, animation: nil, animatedImageData: nil))
        }
        return frames
    }

    /// Frame `index` of an animated image as a still image (only that frame's pixels copied); `nil` out of range
    /// or for a still image. For views that play an animation a few frames ahead.
    package func frame(at index: Int) -> KFCrossPlatformImage? {
        guard let animation = base.animation, (0..<animation.frameCount).contains(index),
            let frame = try? base.storage.frame(index).materialised()
        else { return nil }
        return KFCrossPlatformImage(storage: frame, scale: base.scale, animation: nil, animatedImageData: nil)
    }

    /// The number of frames of the animated data the image was made from, as Kingfisher's: the frame count of an
    /// animated image (1 for a one-frame GIF), the source's frame count for the first frame taken alone
    /// (`onlyFirstFrame`), `nil` for an image that never was animated data (a JPEG, a PNG, a processed still).
    ///
    /// - Note: Read-only here: Kingfisher lets it be set because it keeps it beside the image; ours is part of the
    ///   immutable image.
    public var imageFrameCount: Int? { base.animation?.frameCount ?? base.sourceFrameCount }

    /// Seconds one loop of an animated image lasts; 0 for a still image. An animation of one frame lasts forever
    /// (`.infinity`), as Kingfisher's.
    public var duration: TimeInterval {
        guard let animation = base.animation else { return 0 }
        return animation.frameCount == 1 ? .infinity : animation.frameDurations.reduce(0, +)
    }

    /// Seconds each frame is shown; empty for a still image.
    public var frameDurations: [TimeInterval] { base.animation?.frameDurations ?? [] }

    /// How many times the animation plays, 0 meaning forever; 0 for a still image.
    public var loopCount: Int { base.animation?.loopCount ?? 0 }

    /// The data an animated image was decoded from (GIF or WebP), `nil` otherwise.
    public var animatedImageData: Data? { base.animatedImageData }

    /// The frame source of an animated image: the one it was made from with
    /// ``KingfisherWrapper/animatedImage(source:options:baseImage:)``, or for animated data decoded here one over the
    /// image's own frames (Kingfisher's `CGImageFrameSource`); `nil` for a still image and for a processor's output.
    public var frameSource: (any ImageFrameSource)? { base.frameSource }

    /// The image with its orientation applied. Pixels here are always upright (EXIF orientation is applied when
    /// decoding, and an image has no orientation flag), so this is the image itself, as Kingfisher's `normalized`
    /// on macOS and for animated images; animated images keep every frame.
    public var normalized: KFCrossPlatformImage { base }

    /// The image with its pixels computed now. Every image here is decoded into memory when it is made, so this is
    /// the image itself.
    public var decoded: KFCrossPlatformImage { base }

    /// The image's pixels at `scale`: the same pixels, with ``KFCrossPlatformImage/scale`` set to `scale` (so its
    /// size in points is its pixel size divided by `scale`), as Kingfisher's `decoded(scale:)`. A scale that is not
    /// a positive finite number leaves the image as it is.
    public func decoded(scale: CGFloat) -> KFCrossPlatformImage { base.withScale(scale) }

    /// Gives `image` this image's original animated data, as Kingfisher does for custom processors that build a
    /// new image from an animated one: `gifRepresentation()` and ``DefaultCacheSerializer`` then store the
    /// original animation. The built-in processors don't call it: they process every frame instead.
    public func copyKingfisherState(to image: KFCrossPlatformImage) {
        guard image !== base else { return }
        image.animatedImageData = base.animatedImageData
    }
}
