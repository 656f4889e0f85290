public import CGtk
public import Foundation
public import Kingfisher
import KingfisherLocking

/// A GTK 4 widget that shows images loaded with Kingfisher: `imageView.kf.setImage(with: url, placeholder: ...,
/// options: [.transition(.flipFromLeft(0.4))])` as on iOS. Its ``widget`` (a `GtkOverlay`) goes into a window like
/// any GTK widget; the image is drawn in a `GtkDrawingArea` (fitted, centred), an `.activity` indicator is a
/// `GtkSpinner` over it, a widget placeholder (``GTKWidgetPlaceholder``) is laid over it while loading.
///
/// A view taken off the screen (unmapped: its window hidden or closed, the widget removed) cancels its load; one
/// that was never shown loads as asked.
///
/// Create it on the GTK thread. Kingfisher may call it from any thread: every GTK call it makes runs on the GTK
/// main context (``GTKMainContext``); decoding and processing stay in the pipeline.
///
/// Transitions are drawn on the frame clock: `.fade` cross-fades; `.flipFromLeft/Right/Top/Bottom` turn the view
/// about its centre line in perspective, the old image on the front face and the new one on the back.
public final class KFImageView: KingfisherImageTarget {
    /// Kingfisher calls the view, and `kf.setImage`'s progress and completion handlers, on the GTK thread.
    public let kingfisherState = KingfisherTargetState(performingCallsWith: GTKMainContext.performNowIfCurrent)
    /// The widget to put in a window.
    public let widget: GTKObject<GtkWidget>
    /// Where the image is drawn.
    let canvas: GTKObject<GtkWidget>
    let spinner: GTKObject<GtkWidget>
    /// The widget of the indicator shown (`.image` or a ``GTKIndicator``), if any; only touched on the GTK thread.
    let indicatorSlot = IndicatorSlot()
    /// What the canvas draws; only touched on the GTK thread.
    let stage = Stage()

    /// How the image fills the view, as UIKit's `contentMode`.
    public enum ContentMode: Int32, Sendable {
        /// Fitted inside, aspect kept, centred (the default).
        case scaleAspectFit = 0
        /// Covering the view, aspect kept, centred; what overflows is cut off.
        case scaleAspectFill = 1
        /// At its own size in points (pixels / its scale), centred.
        case center = 2
    }

    /// How the image fills the view. `.scaleAspectFit` by default.
    public var contentMode: ContentMode {
        get { contentModeValue.withLock { $0 } }
        set {
            contentModeValue.withLock { $0 = newValue }
            let stage = self.stage
            let canvas = self.canvas
            GTKMainContext.perform {
                stage.contentMode = newValue
                gtk_widget_queue_draw(canvas.pointer)
            }
        }
    }
    private let contentModeValue = Locked(ContentMode.scaleAspectFit)

    /// Device pixels per point where the view is shown (2 on a HiDPI monitor, 1 before it is realised): ask for
    /// images this many times the view's point size (`.scaleFactor(view.scaleFactor)` with a downsampling processor
    /// sized in points), and they are drawn pixel for pixel. On the GTK thread.
    public var scaleFactor: CGFloat {
        precondition(GTKMainContext.isCurrent, "scaleFactor belongs on the GTK thread")
        return CGFloat(max(1, gtk_widget_get_scale_factor(widget.pointer)))
    }

    /// How many times an animated image plays. `.infinite` by default (Kingfisher's `AnimatedImageView`).
    public var repeatCount: RepeatCount {
        get { playback.withLock { $0.repeatCount } }
        set { playback.withLock { $0.repeatCount = newValue } }
    }
    /// Whether an animated image starts playing when it is set. `true` by default.
    public var autoPlayAnimatedImage: Bool {
        get { playback.withLock { $0.autoPlay } }
        set { playback.withLock { $0.autoPlay = newValue } }
    }
    /// How many frames ahead of the one shown are made drawable (and kept): memory for smoothness. 10 by default.
    public var framePreloadCount: Int {
        get { playback.withLock { $0.preloadCount } }
        set { playback.withLock { $0.preloadCount = max(1, newValue) } }
    }
    private struct Playback {
        var repeatCount = RepeatCount.infinite
        var autoPlay = true
        var preloadCount = 10
    }
    private let playback = Locked(Playback())

    /// Plays the animated image shown (from its first frame). On the GTK thread.
    public func startAnimating() {
        precondition(GTKMainContext.isCurrent, "startAnimating() belongs on the GTK thread")
        guard let image = shown.withLock({ $0.image }), image.kf.frameDurations.count > 1 else { return }
        let settings = playback.withLock { $0 }
        let player = Player(
            image: image, repeatCount: settings.repeatCount, preloadCount: settings.preloadCount,
            drawnAs: stage.drawnAs)
        stage.player = player
        let canvas = self.canvas
        let stage = self.stage
        let redraw: @Sendable () -> Void = { gtk_widget_queue_draw(canvas.pointer) }
        player.prepareAhead(redraw: redraw)
        // Steps while it is the view's player.
        GTKCallbacks.addTick(to: canvas.pointer) { [weak stage] frameTime in
            guard let stage, stage.player === player else { return false }
            return player.step(at: frameTime, redraw: redraw)
        }
    }

    /// Stops playing; the frame shown stays. On the GTK thread.
    public func stopAnimating() {
        precondition(GTKMainContext.isCurrent, "stopAnimating() belongs on the GTK thread")
        stage.player = nil
    }

    /// Whether an animated image is playing. On the GTK thread.
    public var isAnimating: Bool {
        precondition(GTKMainContext.isCurrent, "isAnimating belongs on the GTK thread")
        return stage.player.map { !$0.finished } ?? false
    }

    /// Starts playback when `image` is animated and the view plays automatically. On the GTK thread.
    fileprivate func playIfAnimated(_ image: KFCrossPlatformImage?) {
        stage.player = nil
        guard let image, image.kf.frameDurations.count > 1, playback.withLock({ $0.autoPlay }) else { return }
        startAnimating()
    }
    /// The image set last, and a count bumped with every image set (a transition or a picture for an older one
    /// stops), changed together.
    private let shown = Locked<(image: KFCrossPlatformImage?, generation: Int)>((nil, 0))

    /// Records `image` as the one shown and returns its generation.
    private func show(_ image: KFCrossPlatformImage?) -> Int {
        shown.withLock { shown in
            shown = (image, shown.generation + 1)
            return shown.generation
        }
    }

    /// A view of `width` x `height` points (its size request; it may grow).
    /// - Precondition: called on the GTK thread.
    public init(width: Int32 = -1, height: Int32 = -1) {
        precondition(GTKMainContext.isCurrent, "KFImageView must be created on the GTK thread")
        let overlay = gtk_overlay_new()!
        let canvas = gtk_drawing_area_new()!
        let spinner = gtk_spinner_new()!
        gtk_widget_set_hexpand(canvas, 1)
        gtk_widget_set_vexpand(canvas, 1)
        gtk_overlay_set_child(cgtk_overlay(overlay), canvas)
        gtk_widget_set_halign(spinner, GTK_ALIGN_CENTER)
        gtk_widget_set_valign(spinner, GTK_ALIGN_CENTER)
        gtk_widget_set_size_request(spinner, 32, 32)
        // On a disc of its own, light under a dark stroke: as plain on a dark placeholder as on a light one.
        Self.spinnerStyleInstalled()
        gtk_widget_add_css_class(spinner, "kf-spinner")
        gtk_widget_set_visible(spinner, 0)
        gtk_overlay_add_overlay(cgtk_overlay(overlay), spinner)
        gtk_widget_set_size_request(overlay, width, height)
        // The view keeps its widget alive, whatever the window does with it.
        _ = cgtk_object_ref_sink(overlay)
        widget = GTKObject(overlay)
        self.canvas = GTKObject(canvas)
        self.spinner = GTKObject(spinner)
        cgtk_set_draw(
            canvas,
            { data, cairo, width, height in
                guard let data, let cairo else { return }
                Unmanaged<Stage>.fromOpaque(data).takeUnretainedValue().draw(cairo, Int(width), Int(height))
            }, Unmanaged.passRetained(stage).toOpaque(),
            { data in
                guard let data else { return }
                Unmanaged<Stage>.fromOpaque(data).release()
            })
        stage.canvas = canvas
        // Taken off the screen (its window closed or hidden, the widget removed), it stops loading, and a running
        // transition ends (the frame clock that steps it stops for an unmapped widget).
        GTKCallbacks.connect(overlay, "unmap") { [weak self] in
            self?.kf.cancelDownloadTask()
            self?.stage.motionRunning?.finishNow()
        }
    }

    /// Installs the spinner's look for the display, once (on the GTK thread, when the first view is made).
    private static func spinnerStyleInstalled() { _ = spinnerStyle }
    private static let spinnerStyle: Void = {
        guard let display = gdk_display_get_default() else { return }
        let provider = gtk_css_provider_new()!
        let css =
            ".kf-spinner { background-color: rgba(255, 255, 255, 0.8); border-radius: 9999px; padding: 4px; "
            + "color: #241f31; }"
        gtk_css_provider_load_from_data(provider, css, -1)
        gtk_style_context_add_provider_for_display(
            display, cgtk_style_provider(provider), UInt32(GTK_STYLE_PROVIDER_PRIORITY_APPLICATION))
        cgtk_object_unref(provider)
    }()

    deinit {
        let widget = self.widget
        GTKMainContext.perform { cgtk_object_unref(widget.pointer) }
    }

    public var image: KFCrossPlatformImage? {
        get { shown.withLock { $0.image } }
        set {
            let mine = show(newValue)
            let stage = self.stage
            let canvas = self.canvas
            // The image becomes drawable off the main loop, then is shown there unless a newer one came meanwhile.
            pictureQueue.async { [weak self] in
                let fitting = stage.drawnAs.withLock { $0 }
                let picture = PictureDelivery(Stage.Picture(newValue, preparedFor: fitting))
                GTKMainContext.perform { [weak self] in
                    guard let self, self.isCurrent(mine) else { return }
                    stage.current = picture.picture
                    stage.previous = nil
                    stage.cover = nil
                    stage.installed = mine
                    stage.motion = .still
                    self.playIfAnimated(newValue)
                    gtk_widget_queue_draw(canvas.pointer)
                }
            }
        }
    }

    /// Where this view's images are made drawable (converted for cairo, scaled to the drawn size), in the order they
    /// were set, off the main loop. The view's own: views never wait for each other's pictures.
    let pictureQueue = DispatchQueue(label: "com.onevcat.Kingfisher.KFImageView.pictures", qos: .userInitiated)

    // MARK: - Transitions

    public func transition(
        _ transition: ImageTransition, from oldImage: KFCrossPlatformImage?, to newImage: KFCrossPlatformImage,
        completion: @escaping @Sendable (Bool) -> Void
    ) {
        let duration: TimeInterval
        let kind: Stage.Kind
        switch transition {
        case .none:
            image = newImage
            completion(true)
            return
        case .custom(let seconds, let animations, _):
            if let animations {
                animations(self, newImage)
                completion(true)
                return
            }
            (duration, kind) = (seconds, .fade)
        case .fade(let seconds): (duration, kind) = (seconds, .fade)
        case .flipFromLeft(let seconds): (duration, kind) = (seconds, .flip(axis: 0, sign: 1))
        case .flipFromRight(let seconds): (duration, kind) = (seconds, .flip(axis: 0, sign: -1))
        case .flipFromTop(let seconds): (duration, kind) = (seconds, .flip(axis: 1, sign: -1))
        case .flipFromBottom(let seconds): (duration, kind) = (seconds, .flip(axis: 1, sign: 1))
        }
        // What is on screen now (the placeholder, the spinner, the previous image) is what turns or fades away.
        if GTKMainContext.isCurrent { holdWhatIsShown() }
        let mine = show(newImage)
        let motion = Motion(
            view: self, generation: mine, kind: kind, duration: max(0.001, duration), completion: completion)
        let stage = self.stage
        let canvas = self.canvas
        pictureQueue.async { [weak self] in
            let fitting = stage.drawnAs.withLock { $0 }
            let pictures = PictureDelivery(
                Stage.Picture(newImage, preparedFor: fitting), Stage.Picture(oldImage, preparedFor: fitting))
            GTKMainContext.perform { [weak self] in
                guard let self, self.isCurrent(mine) else {
                    motion.finishNow()  // superseded: completes with false
                    return
                }
                stage.player = nil
                stage.previous = stage.cover ?? pictures.previous
                stage.current = pictures.picture
                stage.cover = nil
                stage.installed = mine
                stage.motion = .moving(kind, progress: 0)
                gtk_widget_queue_draw(canvas.pointer)
                // Not on screen, there are no frames to step it: it is over at once.
                guard gtk_widget_get_mapped(canvas.pointer) != 0 else {
                    motion.finishNow()
                    return
                }
                stage.motionRunning = motion
                GTKCallbacks.addTick(to: canvas.pointer) { motion.step(at: $0) }
            }
        }
    }

    /// How far the running transition is, 0...1 (1 when none runs). On the GTK thread.
    var transitionProgress: Double {
        if case .moving(_, let progress) = stage.motion { return progress }
        return 1
    }

    fileprivate func isCurrent(_ generation: Int) -> Bool { shown.withLock { $0.generation == generation } }

    /// Keeps what the view shows now — its picture, and the placeholder widget and indicator over it — drawn on
    /// its canvas until the picture on its way is ready to draw (a transition then starts from it), or, with none
    /// on its way, until this turn of the main loop ends. Kingfisher stops the indicator and removes a placeholder
    /// before the new image is drawable (it is converted off the main loop): without this the view would show
    /// only its background in between. Called before such a change, on the GTK thread; does nothing when the view
    /// is not on screen (unmapped, or scrolled out of its window: a gallery cancelling the loads of tiles scrolled
    /// away renders none of them) or already holds a picture.
    func holdWhatIsShown() {
        guard stage.cover == nil, gtk_widget_get_mapped(widget.pointer) != 0, cgtk_widget_in_window(widget.pointer) != 0
        else { return }
        var points: Int32 = 0
        guard let surface = cgtk_widget_render_surface(widget.pointer, &points), points > 0 else { return }
        stage.cover = Stage.Picture(
            surface: surface, scale: Double(cairo_image_surface_get_width(surface)) / Double(points))
        gtk_widget_queue_draw(canvas.pointer)
        // Queued (never run here): the rest of Kingfisher's calls of this turn come first.
        GTKMainContext.performAfterFrame { [weak self] in
            guard let self, self.stage.cover != nil, self.isCurrent(self.stage.installed) else { return }
            // Nothing on its way (a failure, a placeholder kept): what the view shows now is drawn.
            self.stage.cover = nil
            gtk_widget_queue_draw(self.canvas.pointer)
        }
    }

    /// What the canvas draws. Only used on the GTK thread.
    // @unchecked: created on any thread, then read and changed on the GTK main context only.
    final class Stage: @unchecked Sendable {
        enum Kind: Equatable {
            case fade
            /// About the vertical (0) or horizontal (1) centre line; `sign` turns it one way or the other.
            case flip(axis: Int32, sign: Double)
        }
        enum Motion: Equatable {
            case still
            case moving(Kind, progress: Double)
        }

        /// An image as cairo draws it (converted once), with its scale (pixels per point).
        final class Picture {
            let surface: OpaquePointer?
            let scale: Double
            /// A picture of a surface already made (it takes it over).
            init(surface: OpaquePointer, scale: Double) {
                self.surface = surface
                self.scale = scale
            }

            /// - Parameter fitting: how the view drew last; the copy for that size is made now, too.
            init?(_ image: KFCrossPlatformImage?, preparedFor fitting: Fitting? = nil) {
                guard let image, image.pixelWidth > 0, image.pixelHeight > 0 else { return nil }
                scale = Double(image.scale)
                let pixels = image.kf.rgbaPixels()
                surface = pixels.withUnsafeBufferPointer {
                    cgtk_surface_rgba($0.baseAddress, Int32(image.pixelWidth), Int32(image.pixelHeight))
                }
                if let fitting {
                    _ = fitted(
                        width: fitting.width, height: fitting.height, mode: fitting.mode,
                        deviceScale: fitting.deviceScale)
                }
            }
            deinit {
                cgtk_surface_destroy(surface)
                if let fitted { cgtk_surface_destroy(fitted.surface) }
            }

            /// The last copy made to draw in a view without scaling: its size in pixels, and the surface.
            private var fitted: (width: Int32, height: Int32, surface: OpaquePointer?)?

            /// The picture as drawn in `width` x `height` points with `mode` on a `deviceScale` target: a copy
            /// scaled once (and kept until the size changes), so that each frame only copies pixels; `nil` when no
            /// scaling is needed.
            func fitted(width: Int32, height: Int32, mode: ContentMode, deviceScale: Double) -> OpaquePointer? {
                guard let surface else { return nil }
                let (sw, sh) = (
                    Double(cairo_image_surface_get_width(surface)), Double(cairo_image_surface_get_height(surface))
                )
                guard sw > 0, sh > 0, width > 0, height > 0 else { return nil }
                let points: Double
                switch mode {
                case .scaleAspectFit: points = min(Double(width) / sw, Double(height) / sh)
                case .scaleAspectFill: points = max(Double(width) / sw, Double(height) / sh)
                case .center: points = 1 / max(scale, 0.001)
                }
                let pixels = points * deviceScale
                guard abs(pixels - 1) > 0.001 else { return nil }
                let w = Int32(max(1, (sw * pixels).rounded()))
                let h = Int32(max(1, (sh * pixels).rounded()))
                if let fitted, fitted.width == w, fitted.height == h { return fitted.surface }
                if let fitted { cgtk_surface_destroy(fitted.surface) }
                let copy = cgtk_surface_scaled(surface, w, h)
                fitted = (w, h, copy)
                return copy
            }
        }

        /// How a view draws its image: its size in points, content mode and device scale.
        struct Fitting: Sendable, Equatable {
            var width: Int32
            var height: Int32
            var mode: ContentMode
            var deviceScale: Double
        }

        /// The drawing area (it owns the stage through its draw function).
        var canvas: UnsafeMutablePointer<GtkWidget>?
        /// The transition being stepped, if any.
        weak var motionRunning: KFImageView.Motion?
        /// How the canvas drew last, for pictures made off the main loop to be made at that size.
        let drawnAs = Locked<Fitting?>(nil)
        var current: Picture?
        var previous: Picture?
        /// What the view showed (overlays included) when Kingfisher began changing it, drawn instead of `current`
        /// until the picture on its way is installed (see ``KFImageView/holdWhatIsShown()``).
        var cover: Picture?
        /// The generation of the last picture installed (see `shown`).
        var installed = 0
        var motion = Motion.still
        var contentMode = ContentMode.scaleAspectFit
        /// Plays the current image when it is animated.
        var player: Player?

        func draw(_ cairo: OpaquePointer, _ width: Int, _ height: Int) {
            let (w, h) = (Int32(width), Int32(height))
            let mode = contentMode.rawValue
            // GTK draws into a recording surface that has no device scale: the widget's scale factor says it.
            let deviceScale = canvas.map { Double(max(1, gtk_widget_get_scale_factor($0))) } ?? 1
            let fitting = Fitting(width: w, height: h, mode: contentMode, deviceScale: deviceScale)
            drawnAs.withLock { $0 = fitting }
            func paint(_ picture: Picture?, alpha: Double, angle: Double = 0, axis: Int32 = 0) {
                guard let picture else { return }
                // Unturned, a copy already at the drawn size is drawn at its own size (pixels copied, no filtering).
                if angle == 0,
                    let fitted = picture.fitted(width: w, height: h, mode: contentMode, deviceScale: deviceScale)
                {
                    cgtk_draw_surface(cairo, fitted, w, h, alpha, 0, 0, ContentMode.center.rawValue, deviceScale)
                    return
                }
                cgtk_draw_surface(cairo, picture.surface, w, h, alpha, angle, axis, mode, picture.scale)
            }
            switch motion {
            case .still:
                paint(cover ?? player?.picture ?? current, alpha: 1)
            case .moving(.fade, let progress):
                // A cross-fade, (1 − p) · old + p · new (premultiplied, so transparent pictures blend too), made
                // apart and then laid over what is under the view: two opaque pictures never let it through (drawn
                // one over the other, old at 1 − p and new at p, a quarter of it would show at the midpoint).
                cairo_push_group(cairo)
                paint(previous, alpha: 1 - progress)
                cairo_set_operator(cairo, CAIRO_OPERATOR_ADD)
                paint(current, alpha: progress)
                cairo_pop_group_to_source(cairo)
                cairo_paint(cairo)
            case .moving(.flip(let axis, let sign), let progress):
                // The old image turns away on the front face; past halfway the new one turns in on the back.
                let angle = progress * Double.pi
                if angle < Double.pi / 2 {
                    paint(previous, alpha: 1, angle: sign * angle, axis: axis)
                } else {
                    paint(current, alpha: 1, angle: sign * (angle - Double.pi), axis: axis)
                }
            }
        }
    }

    /// One transition, stepped by the frame clock.
    final class Motion: @unchecked Sendable {
        // @unchecked: made before the hop to the GTK main context, then used there only.
        weak var view: KFImageView?
        let generation: Int
        let kind: Stage.Kind
        let duration: TimeInterval
        let completion: @Sendable (Bool) -> Void
        var start: Int64?
        var finished = false

        init(
            view: KFImageView, generation: Int, kind: Stage.Kind, duration: TimeInterval,
            completion: @escaping @Sendable (Bool) -> Void
        ) {
            self.view = view
            self.generation = generation
            self.kind = kind
            self.duration = duration
            self.completion = completion
        }

        /// Moves the transition to `frameTime` (µs); false once done (or superseded).
        func step(at frameTime: Int64) -> Bool {
            // A frame already on its way when the view left the screen must not restart what `finishNow` ended.
            guard !finished else { return false }
            guard let view, view.isCurrent(generation) else {
                finish(false)
                return false
            }
            let start = self.start ?? frameTime
            self.start = start
            let progress = min(1, Double(frameTime - start) / (duration * 1_000_000))
            view.stage.motion = progress >= 1 ? .still : .moving(kind, progress: progress)
            if progress >= 1 { view.stage.previous = nil }
            gtk_widget_queue_draw(view.canvas.pointer)
            guard progress >= 1 else { return true }
            view.playIfAnimated(view.image)
            finish(true)
            return false
        }

        /// Ends the transition now on the new image (the view went off screen, or never was on it).
        func finishNow() {
            guard !finished, let view, view.isCurrent(generation) else {
                finish(false)
                return
            }
            view.stage.motion = .still
            view.stage.previous = nil
            gtk_widget_queue_draw(view.canvas.pointer)
            view.playIfAnimated(view.image)
            finish(true)
        }

        private func finish(_ done: Bool) {
            guard !finished else { return }
            finished = true
            completion(done)
        }

        deinit { finish(false) }
    }
}

/// Any GTK widget as a placeholder: laid over a ``KFImageView`` while its image loads, removed when the load ends
/// (Kingfisher's "a label as a placeholder").
public struct GTKWidgetPlaceholder: Placeholder {
    public let widget: GTKObject<GtkWidget>
    private let reference: WidgetReference

    /// - Parameter widget: the widget to show; the placeholder keeps a reference to it while it lives.
    public init(_ widget: UnsafeMutablePointer<GtkWidget>) {
        _ = cgtk_object_ref_sink(widget)
        self.widget = GTKObject(widget)
        reference = WidgetReference(self.widget)
    }

    /// Gives the placeholder's reference to its widget back when the last copy of the placeholder goes.
    private final class WidgetReference: Sendable {
        let widget: GTKObject<GtkWidget>
        init(_ widget: GTKObject<GtkWidget>) { self.widget = widget }
        deinit {
            let widget = self.widget
            GTKMainContext.perform { cgtk_object_unref(widget.pointer) }
        }
    }

    public func add(to target: any KingfisherImageTarget) {
        guard let view = target as? KFImageView else { return }
        let widget = self.widget
        let overlay = view.widget
        GTKMainContext.performNowIfCurrent {
            guard gtk_widget_get_parent(widget.pointer) == nil else { return }
            gtk_overlay_add_overlay(cgtk_overlay(overlay.pointer), widget.pointer)
        }
    }

    public func remove(from target: any KingfisherImageTarget) {
        guard let view = target as? KFImageView else { return }
        let widget = self.widget
        let overlay = view.widget
        GTKMainContext.performNowIfCurrent {
            guard gtk_widget_get_parent(widget.pointer) == overlay.pointer else { return }
            // It stays drawn until the image can be (or this turn of the main loop ends).
            view.holdWhatIsShown()
            gtk_overlay_remove_overlay(cgtk_overlay(overlay.pointer), widget.pointer)
        }
    }
}

/// Kingfisher's name for the platform's image view.
public typealias KFCrossPlatformImageView = KFImageView

/// Drawable pictures handed from a preparing queue to the GTK thread.
// @unchecked: the pictures are made on the queue and only used on the GTK thread after the hand-over.
final class PictureDelivery: @unchecked Sendable {
    let picture: KFImageView.Stage.Picture?
    let previous: KFImageView.Stage.Picture?
    init(_ picture: KFImageView.Stage.Picture?, _ previous: KFImageView.Stage.Picture? = nil) {
        self.picture = picture
        self.previous = previous
    }
}
