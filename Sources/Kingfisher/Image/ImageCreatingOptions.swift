public import Foundation

/// How data becomes an image: its scale, and for animated images, timing and frames.
public struct ImageCreatingOptions: Sendable, Equatable {
    /// The scale of the created image: a 200 x 200 pixel image at scale 2 is 100 x 100 points. `1` by default.
    public var scale: CGFloat

    /// The total duration of an animated image. `0` (the default) keeps the durations stored in the file;
    /// a positive value spreads this many seconds evenly over the frames.
    public var duration: TimeInterval

    /// Kingfisher's flag to decode every frame up front. Frames here are always decoded up front (into one
    /// block of memory, counted in `kf.cost`), so the flag is accepted and has no further effect.
    public var preloadAll: Bool

    /// Decode only the first frame of an animated image, giving a still image. `false` by default.
    public var onlyFirstFrame: Bool

    public init(
        scale: CGFloat = 1.0,
        duration: TimeInterval = 0.0,
        preloadAll: Bool = false,
        onlyFirstFrame: Bool = false
    ) {
        self.scale = scale
        self.duration = duration
        self.preloadAll = preloadAll
        self.onlyFirstFrame = onlyFirstFrame
    }
}
