import CGtk
import Foundation
import KfCommandKit
import KingfisherGTK

/// How long the main loop spends on each frame of a window (from the frame clock's `before-paint` to its
/// `after-paint`: ticks, layout, drawing) and the gaps between frames. On the GTK thread.
final class FrameTimes {
    private(set) var work: [Double] = []
    private(set) var intervals: [Double] = []
    private var frameStart: Int64?
    private var lastStart: Int64?
    /// Recording only while this is true.
    var recording = false

    /// Starts listening to `widget`'s frame clock (the widget must be realised).
    func attach(to widget: UnsafeMutablePointer<GtkWidget>) {
        guard let clock = gtk_widget_get_frame_clock(widget) else { return }
        GTKCallbacks.connect(UnsafeMutableRawPointer(clock), "before-paint") { [weak self] in
            guard let self, self.recording else { return }
            let now = g_get_monotonic_time()
            if let lastStart { intervals.append(Double(Int64(now) - lastStart) / 1000) }
            lastStart = Int64(now)
            frameStart = Int64(now)
        }
        GTKCallbacks.connect(UnsafeMutableRawPointer(clock), "after-paint") { [weak self] in
            guard let self, self.recording, let frameStart else { return }
            work.append(Double(Int64(g_get_monotonic_time()) - frameStart) / 1000)
            self.frameStart = nil
        }
    }

    /// Stops recording; the next recording does not count the pause as an interval.
    func pause() {
        recording = false
        lastStart = nil
    }

    struct Summary: Codable {
        var frames: Int
        var workP50Milliseconds: Double
        var workP99Milliseconds: Double
        var workMaxMilliseconds: Double
        var intervalP50Milliseconds: Double
        var intervalP99Milliseconds: Double
        /// Gaps longer than two frames at 60 Hz: frames the main loop missed.
        var longGaps: Int
    }

    var summary: Summary {
        Summary(
            frames: work.count, workP50Milliseconds: Self.percentile(work, 0.5),
            workP99Milliseconds: Self.percentile(work, 0.99), workMaxMilliseconds: work.max() ?? 0,
            intervalP50Milliseconds: Self.percentile(intervals, 0.5),
            intervalP99Milliseconds: Self.percentile(intervals, 0.99),
            longGaps: intervals.filter { $0 > 2 * 1000 / 60.0 }.count)
    }

    /// The value below which `fraction` of `values` lie (nearest rank); 0 for none.
    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(sorted.count - 1, max(0, rank))]
    }
}
