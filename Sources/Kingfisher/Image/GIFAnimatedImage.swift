public import Foundation

/// The frames and total duration read from an ``ImageFrameSource``, the step between a frame source and an animated
/// ``KFCrossPlatformImage`` (Kingfisher's name, whatever the format).
public final class GIFAnimatedImage: Sendable {
    /// The frames, at the scale of the options they were read with.
    public let images: [KFCrossPlatformImage]
    /// The seconds one loop lasts: the sum of the frames' durations, or `.infinity` for a single frame, as Kingfisher.
    public let duration: TimeInterval

    /// Reads every frame of `frameSource` (only the first with `options.onlyFirstFrame`); `nil` when a frame is
    /// missing.
    public init?(from frameSource: any ImageFrameSource, options: ImageCreatingOptions) {
        let frameCount = frameSource.frameCount
        var images: [KFCrossPlatformImage] = []
        var duration: TimeInterval = 0
        for index in 0..<max(0, frameCount) {
            guard let frame = frameSource.frame(at: index) else { return nil }
            images.append(frame.withScale(options.scale))
            duration += Self.usableDuration(frameSource.duration(at: index))
            if options.onlyFirstFrame { break }
        }
        self.images = images
        self.duration = frameCount == 1 ? .infinity : duration
    }

    /// A GIF frame's duration from its properties dictionary (ImageIO's `UnclampedDelayTime`, else `DelayTime`, in
    /// seconds), 0.1 s when there is none or it is 10 ms or less (``FrameDelay``), as browsers and Kingfisher do.
    public static func getFrameDuration(from gifInfo: [String: Any]?) -> TimeInterval {
        let value = gifInfo?["UnclampedDelayTime"] ?? gifInfo?["DelayTime"]
        let seconds = (value as? Double) ?? (value as? NSNumber)?.doubleValue ?? (value as? Int).map(Double.init)
        return FrameDelay.playable(seconds ?? 0)
    }

    /// A frame duration a frame source gave, as it is played (``FrameDelay``).
    static func usableDuration(_ seconds: TimeInterval) -> TimeInterval {
        FrameDelay.playable(seconds)
    }
}

extension KingfisherWrapper where Base == KFCrossPlatformImage {
    /// An animated image of the frames of `source`, each shown for its ``ImageFrameSource/duration(at:)`` (or
    /// `options.duration` spread evenly when positive), at `options.scale`; the source is kept as the image's
    /// ``frameSource`` and its data as ``animatedImageData``.
    ///
    /// - Parameters:
    ///   - baseImage: an image to show as the first frame instead of the source's.
    /// - Returns: the first frame alone with `options.onlyFirstFrame` (its `imageFrameCount` is the source's frame
    ///   count); `nil` when the source has no frames or one is missing.
    /// - Note: The frames are read at once and kept in the image's memory (Kingfisher reads them lazily while
    ///   playing). Frames whose pixel size differs from the first are resized to it.
    public static func animatedImage(
        source: any ImageFrameSource, options: ImageCreatingOptions, baseImage: KFCrossPlatformImage? = nil
    ) -> KFCrossPlatformImage? {
        guard source.frameCount > 0 else { return nil }
        if options.onlyFirstFrame {
            guard let first = baseImage ?? source.frame(at: 0), !first.isEmptyImage else { return nil }
            return KFCrossPlatformImage(
                storage: first.storage, scale: options.scale, animation: nil, animatedImageData: nil,
                sourceFrameCount: source.frameCount)
        }
        guard let read = GIFAnimatedImage(from: source, options: options), var frames = Optional(read.images),
            !frames.isEmpty
        else { return nil }
        if let baseImage { frames[0] = baseImage }
        let firstSize = CGSize(width: frames[0].pixelWidth, height: frames[0].pixelHeight)
        let durations: [TimeInterval] =
            options.duration > 0
            ? Array(repeating: options.duration / Double(frames.count), count: frames.count)
            : (0..<frames.count).map { GIFAnimatedImage.usableDuration(source.duration(at: $0)) }
        do {
            let sized = try frames.map { frame throws -> KFCrossPlatformImage in
                let still = frame.animation == nil ? frame : try frame.firstFrame()
                guard still.pixelWidth != Int(firstSize.width) || still.pixelHeight != Int(firstSize.height) else {
                    return still
                }
                return try still.withScale(1).resizing(to: firstSize)
            }
            let joined = try KFCrossPlatformImage(frames: sized, frameDurations: durations)
            let animation = KFCrossPlatformImage.Animation(
                frameCount: sized.count, frameDurations: durations, loopCount: 0)
            return KFCrossPlatformImage(
                storage: joined.storage, scale: options.scale, animation: animation, animatedImageData: source.data,
                frameSource: source)
        } catch {
            return nil
        }
    }
}

extension KFCrossPlatformImage {
    /// The first frame of an animated image as a still image.
    func firstFrame() throws(VipsError) -> KFCrossPlatformImage {
        KFCrossPlatformImage(
            storage: try storage.frame(0).materialised(), scale: scale, animation: nil, animatedImageData: nil)
    }
}
