public import Foundation
import KingfisherLocking

extension ImageEngine {
    /// The most frames an animated image (GIF, WebP) may declare. Longer animations are rejected from their header
    /// with ``KingfisherError/ProcessorErrorReason/frameLimitExceeded(frames:limit:)`` before any frame is decoded;
    /// their first frame alone (`onlyFirstFrame`, or a downsampling processor) still decodes. The pixels of all
    /// frames together count against ``maximumPixelCount`` as well. 3,000 frames by default (two minutes at
    /// 25 frames a second); values below 1 are treated as 1.
    public static var maximumFrameCount: Int {
        get { Configuration.default.maximumFrameCount }
        set { Configuration.changeDefault { $0.maximumFrameCount = newValue } }
    }

    /// How long one decode, or one processing run, may compute pixels before it is stopped with
    /// ``KingfisherError/ProcessorErrorReason/timeLimitExceeded(seconds:)``: 2 s plus 2 s per megapixel by default (of
    /// the larger of source and result, every frame counted), plus 10 ms per frame of an animation (each frame costs a
    /// pipeline of its own, however small), a hundred times what libvips needs for ordinary images. A job of an owner's
    /// workers (a decode and the processors that follow it) has one limit from its start, for the largest image it
    /// computes, whatever the number of steps. The clock is checked between strips of rows, so the work ends within one
    /// strip of the limit. An SVG is drawn by librsvg in calls nothing can interrupt, so it is first drawn at 128 x 128
    /// pixels and refused at once when that, scaled to its full size, would overrun the limit.
    public static var timeLimit: TimeLimit {
        get { Configuration.default.timeLimit }
        set { Configuration.changeDefault { $0.timeLimit = newValue } }
    }

    /// A time limit that grows with the work a run does: ``minimum`` seconds, plus ``perMegapixel`` seconds for
    /// every million pixels, plus ``perFrame`` seconds for every frame of an animation.
    public struct TimeLimit: Sendable, Hashable {
        /// Seconds every run gets, however small. 2 by default.
        public var minimum: TimeInterval
        /// Seconds added for each megapixel. 2 by default.
        public var perMegapixel: TimeInterval
        /// Seconds added for each frame of an animation processed frame by frame. 0.01 by default: 2,000 frames
        /// of 1x1 pixels get 22 s, about fifty times what they take.
        public var perFrame: TimeInterval

        public init(minimum: TimeInterval = 2, perMegapixel: TimeInterval = 2, perFrame: TimeInterval = 0.01) {
            self.minimum = minimum
            self.perMegapixel = perMegapixel
            self.perFrame = perFrame
        }

        /// No limit at all.
        public static let unlimited = TimeLimit(minimum: .infinity, perMegapixel: 0, perFrame: 0)

        /// The seconds a run computing `pixels` pixels in `frames` frames may take.
        public func seconds(forPixels pixels: Int, frames: Int = 1) -> TimeInterval {
            max(0, minimum) + max(0, perMegapixel) * Double(max(0, pixels)) / 1_000_000
                + (frames > 1 ? max(0, perFrame) * Double(frames) : 0)
        }
    }
}
