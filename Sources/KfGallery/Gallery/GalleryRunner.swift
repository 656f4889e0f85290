import CGtk
import Foundation
import KfCommandKit
import KingfisherGTK

/// Runs the gallery's main loop on the GTK thread until the window closes or the schedule is done: the first
/// refresh once the window has a size, then the screenshots and the scripted scroll on the frame clock.
final class GalleryRunner {
    private let window: GalleryWindow
    private let loads: GalleryLoads
    private let frames: FrameTimes
    private let schedule: GallerySchedule
    private var quit = false
    private var failure: CommandFailure?
    private var firstFrame: Int64?
    /// The `--screenshots` series, when asked for.
    private let series: ScreenshotSeries?
    private var scrollEnded: Double?
    /// When the loads were last seen settled (none running after some ran); `nil` while one runs.
    private var loadsSettled: Double?
    /// Seconds since the first frame, as of the frame being made.
    private var elapsedNow: Double?

    init(window: GalleryWindow, loads: GalleryLoads, frames: FrameTimes, schedule: GallerySchedule) {
        self.window = window
        self.loads = loads
        self.frames = frames
        self.schedule = schedule
        series = schedule.series.map { ScreenshotSeries(directory: $0.directory, every: $0.every, until: $0.until) }
    }

    /// The series' shots taken and skipped, when one was asked for.
    var screenshotCounts: ScreenshotSeries.Counts? { series?.counts }

    /// Iterates the main context until done; returns what went wrong, if anything.
    func run() -> CommandFailure? {
        if let directory = schedule.series?.directory {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                return CommandFailure("cannot create \(directory.path): \(FailureMessage.plain(error))")
            }
        }
        GTKCallbacks.addTick(to: window.window.pointer) { [weak self] frameTime in
            self?.tick(frameTime) ?? false
        }
        while !quit && window.isOpen {
            _ = g_main_context_iteration(nil, 1)
        }
        // The shots still being written.
        if let written = series?.finish(), failure == nil { failure = written }
        return failure
    }

    /// One frame: the first refresh, then what the schedule says is due. False once nothing more is to be done
    /// on the frame clock.
    private func tick(_ frameTime: Int64) -> Bool {
        guard gtk_adjustment_get_page_size(window.adjustment) > 0 else { return true }  // not laid out yet
        if firstFrame == nil {
            firstFrame = frameTime
            frames.attach(to: window.window.pointer)
            if let clock = gtk_widget_get_frame_clock(window.window.pointer) {
                // Screenshots once the frame is laid out and drawn.
                GTKCallbacks.connect(UnsafeMutableRawPointer(clock), "after-paint") { [weak self] in
                    self?.takeScreenshotsDue()
                }
            }
            frames.recording = true
            loads.refresh()
            if !schedule.isScripted {
                frames.pause()
                return false
            }
        }
        let elapsed = Double(frameTime - (firstFrame ?? frameTime)) / 1_000_000
        if let seconds = schedule.scrollSeconds, scrollEnded == nil {
            let atBottom = window.scroll(toward: seconds > 0 ? elapsed / seconds : 1)
            // The loads see every position the script passes: right after this frame and before the next (on a
            // busy machine the idle refresh would come too late, and rows would be skipped), not inside it, where
            // their starts would count as this frame's work, which a scroll's idle refresh is not. At the bottom,
            // the last position's rows start now, before the check below.
            if atBottom {
                loads.refresh()
                scrollEnded = elapsed
            } else {
                let loads = GTKThreadBound(loads)
                GTKMainContext.performAfterFrame { loads.value.refresh() }
            }
        }
        elapsedNow = elapsed
        if quit { return false }
        // After a scripted scroll (and no screenshot to wait for): quit once no load runs, or 30 s on.
        if schedule.screenshot == nil, schedule.series == nil, let ended = scrollEnded {
            if loads.running == 0 || elapsed - ended > 30 { return finish() }
        }
        return true
    }

    /// Takes the screenshots due by the frame just drawn; quits after the last.
    private func takeScreenshotsDue() {
        guard !quit, let elapsed = elapsedNow else { return }
        do {
            if let shot = schedule.screenshot, elapsed >= shot.after {
                try WindowScreenshot.write(window.window.pointer, to: shot.file)
                _ = finish()
            } else if let series = schedule.series, let shots = self.series {
                if try shots.frameDrawn(window.window.pointer, at: elapsed) { loads.checkLabelsClearOfSpinners() }
                if loads.running > 0 || loads.counts.started == 0 {
                    loadsSettled = nil
                } else if loadsSettled == nil {
                    loadsSettled = elapsed
                }
                let settledLongEnough =
                    schedule.seriesSettle.map { settle in
                        loadsSettled.map { elapsed - $0 >= settle } ?? false
                    } ?? false
                if elapsed >= series.until || settledLongEnough { _ = finish() }
            }
        } catch {
            failure = error
            _ = finish()
        }
    }

    private func finish() -> Bool {
        frames.pause()
        quit = true
        return false
    }
}
