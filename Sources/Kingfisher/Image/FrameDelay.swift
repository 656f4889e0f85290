package import Foundation

/// The one rule for how long an animation frame shows, used where frames are decoded and where they are played:
/// a delay of 10 ms or less (GIFs often write 0), or one that is not a positive finite number, shows for 100 ms,
/// as browsers and Kingfisher play GIFs; any other delay is kept.
package enum FrameDelay {
    /// The delay a frame that asks for `seconds` is shown for.
    package static func playable(_ seconds: TimeInterval) -> TimeInterval {
        seconds.isFinite && seconds >= 0.011 ? seconds : 0.1
    }

    /// The same rule for a delay in whole milliseconds (libvips' `delay`).
    package static func playable(milliseconds: Int) -> TimeInterval {
        playable(Double(milliseconds) / 1000)
    }
}
