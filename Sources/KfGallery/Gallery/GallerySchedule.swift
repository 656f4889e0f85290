import Foundation
import KfCommandKit

/// What `kf gallery` does by itself, timed from the window's first frame: screenshots, a scripted scroll, and
/// when to quit.
struct GallerySchedule {
    /// One screenshot at this time, then quit.
    var screenshot: (file: URL, after: Double)?
    /// A numbered series every `every` seconds up to `until`, then quit.
    var series: (directory: URL, every: Double, until: Double)?
    /// End the series this long after the loads settled (none runs, some ran), if that comes before `until`.
    var seriesSettle: Double?
    /// Scroll from the top to the bottom over this many seconds; quit once the loads it started have settled.
    var scrollSeconds: Double?

    /// Whether anything runs on the frame clock (else the window waits for the user).
    var isScripted: Bool { screenshot != nil || series != nil || scrollSeconds != nil }
}
