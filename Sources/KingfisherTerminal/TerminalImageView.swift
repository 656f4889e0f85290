import Dispatch
public import Kingfisher
import KingfisherLocking

/// An image view for a terminal: Kingfisher's image target that draws with libchafa into a region of cells.
///
/// ```swift
/// let screen = TerminalScreen()
/// screen.reserve(rows: 20)
/// let view = TerminalImageView(screen: screen, region: TerminalRegion(size: TerminalGridSize(columns: 60, rows: 20)))
/// view.kf.indicatorType = .activity
/// view.kf.setImage(with: url, placeholder: grey, options: [.transition(.fade(0.3))])
/// ```
///
/// The picture fills the region but its last row, which is a status line: the spinner and progress of an
/// ``ActivityIndicator`` (or ``ImageIndicator``) while loading, else ``message``. An animated image plays with
/// its frame delays and loop count; a fade draws a few blended frames.
///
/// Setting ``image`` (or anything else) returns at once: rendering and writing run on the view's own serial
/// queue, in the order the changes were made, so Kingfisher may set the image from a network thread.
public final class TerminalImageView: KingfisherImageTarget {
    public let kingfisherState = KingfisherTargetState()

    /// Where the view writes.
    public let screen: TerminalScreen
    /// The cells the view covers, relative to the screen's region.
    public let region: TerminalRegion
    /// How images become text.
    public let renderer: TerminalRenderer
    /// How many times an animated image plays; `nil` (the default) for the image's own loop count, `0` for
    /// forever.
    public let loopCount: Int?

    /// What the caller set; the drawing queue reads it.
    struct Shown {
        var image: KFCrossPlatformImage?
        var message: String?
        /// Bumped by every new image: drawing work for an older one stops.
        var generation = 0
    }

    let shown = Locked(Shown())
    let drawing = Locked(DrawingState())
    let queue = DispatchQueue(label: "com.onevcat.Kingfisher.TerminalImageView")

    public init(
        screen: TerminalScreen, region: TerminalRegion, renderer: TerminalRenderer = TerminalRenderer(),
        loopCount: Int? = nil
    ) {
        self.screen = screen
        self.region = region
        self.renderer = renderer
        self.loopCount = loopCount
    }

    /// The image shown; `nil` shows nothing. Setting it draws it (plays an animated one) on the view's queue.
    public var image: KFCrossPlatformImage? {
        get { shown.withLock { $0.image } }
        set {
            let generation = replaceImage(with: newValue)
            queue.async { self.show(newValue, generation: generation) }
        }
    }

    /// A line of text on the status line, shown while no indicator runs (an error, say). `nil` by default.
    public var message: String? {
        get { shown.withLock { $0.message } }
        set {
            shown.withLock { $0.message = newValue }
            queue.async { self.drawStatus() }
        }
    }

    /// Returns when everything set so far has been drawn and no animation or fade is running (one that loops
    /// forever never ends: then this waits until another image replaces it).
    public func waitUntilIdle() async {
        await withSanitizedCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                self.drawing.withLock { $0.waiters.append(continuation) }
                self.resumeWaitersIfIdle()
            }
        }
    }

    /// Records `image` as shown and returns its generation.
    func replaceImage(with image: KFCrossPlatformImage?) -> Int {
        shown.withLock { shown in
            shown.image = image
            shown.generation += 1
            return shown.generation
        }
    }

    /// The cells the picture uses: the region less its status line (kept when the region has one row only).
    var pictureSize: TerminalGridSize {
        TerminalGridSize(columns: region.size.columns, rows: region.size.rows > 1 ? region.size.rows - 1 : 1)
    }

    /// The status line's row in the region; `nil` when the region has no room for one.
    var statusRow: Int? { region.size.rows > 1 ? region.size.rows - 1 : nil }
}
