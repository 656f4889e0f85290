import CGtk
import Dispatch
import Foundation
import KfCommandKit
import KingfisherLocking

/// `--screenshots`: a shot of the window every `every` seconds, numbered by its time (`0001.png` at 0 s, `0002.png`
/// at `every`...), without ever holding the window's frames up. A frame takes at most one shot, the last one due
/// (those it came too late for are skipped and counted: their numbers are missing), and never two frames in a row
/// (one due on the frame after a shot waits a frame): at least every other frame is the window's alone. A shot is
/// drawn in memory by a cairo renderer of its own (half the cost of reading back the window's software GL under
/// Xvfb) and made into a PNG and written off the main loop (one due while two are still being written is skipped
/// too). Used on the GTK thread.
final class ScreenshotSeries {
    struct Counts: Codable {
        var taken = 0
        /// Shots not taken: their time passed while an earlier frame was late, or the writer was behind.
        var skipped = 0
    }

    private let directory: URL
    private let every: Double
    private let until: Double
    private(set) var counts = Counts()
    /// The next shot's index (its time is `index * every`).
    private var next = 0
    private let writer = DispatchQueue(label: "kf-gallery.screenshots", qos: .utility)
    /// Shots handed to the writer and not written yet; the first failure to write.
    private let writing = Locked<(pending: Int, failure: CommandFailure?)>((0, nil))
    /// Frames seen, and the one that took the last shot.
    private var frames = 0
    /// The time the last frame reached (at most `until`).
    private var reached = -1.0
    private var lastShotFrame: Int?
    /// Draws the shots (made at the first).
    private var renderer: OpaquePointer?

    init(directory: URL, every: Double, until: Double) {
        self.directory = directory
        self.every = every
        self.until = until
    }

    /// After a frame painted at `elapsed` seconds: takes the last shot due by then, if any, and skips those before
    /// it. Returns whether a shot was taken; throws the first write that failed.
    func frameDrawn(_ window: UnsafeMutablePointer<GtkWidget>, at elapsed: Double) throws(CommandFailure) -> Bool {
        if let failure = writing.withLock({ $0.failure }) { throw failure }
        frames += 1
        let reached = min(elapsed, until)
        self.reached = reached
        guard Double(next) * every <= reached else { return false }
        if let lastShotFrame, frames == lastShotFrame + 1 { return false }
        let last = lastDue(by: reached)
        counts.skipped += last - next
        next = last + 1
        guard writing.withLock({ $0.pending }) < 2 else {
            counts.skipped += 1
            return false
        }
        if renderer == nil { renderer = cgtk_cairo_renderer_for(window) }
        let pixels = try WindowScreenshot.capture(window, renderer: renderer)
        counts.taken += 1
        lastShotFrame = frames
        let file = directory.appendingPathComponent(String(format: "%04d.png", last + 1))
        writing.withLock { $0.pending += 1 }
        let writing = self.writing
        writer.async {
            do throws(CommandFailure) {
                try WindowScreenshot.write(pixels, to: file)
                writing.withLock { $0.pending -= 1 }
            } catch {
                writing.withLock { state in
                    state.pending -= 1
                    if state.failure == nil { state.failure = error }
                }
            }
        }
        return true
    }

    /// The index of the last shot due by `reached` seconds (the largest whose time is reached, in the same
    /// arithmetic as the check), at least `next`.
    private func lastDue(by reached: Double) -> Int {
        var last = max(next, Int((reached / every).rounded(.down)))
        while Double(last + 1) * every <= reached { last += 1 }
        while last > next && Double(last) * every > reached { last -= 1 }
        return last
    }

    /// Counts the shots due and not taken as skipped (the last frame may have come right after a shot), waits for
    /// the shots handed to the writer; returns the first that failed, if any.
    func finish() -> CommandFailure? {
        if Double(next) * every <= reached {
            counts.skipped += lastDue(by: reached) - next + 1
            next = lastDue(by: reached) + 1
        }
        if let renderer {
            cgtk_renderer_free(renderer)
            self.renderer = nil
        }
        writer.sync {}
        return writing.withLock { $0.failure }
    }
}
