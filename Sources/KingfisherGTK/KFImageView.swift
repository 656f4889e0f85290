public import CGtk
import Foundation
public import Kingfisher
import KingfisherLocking

/// A GTK 4 widget that shows images loaded with Kingfisher: `imageView.kf.setImage(with: url, placeholder: ...,
/// options: [.transition(.fade(0.3))])` as on iOS. Its ``widget`` (a `GtkOverlay`) goes into a window like any
/// GTK widget; the image is a `GtkPicture`, an `.activity` indicator a `GtkSpinner` over it, a widget placeholder
/// (``GTKWidgetPlaceholder``) is laid over it while loading.
///
/// Create it on the GTK thread. Kingfisher may call it from any thread: every GTK call it makes runs on the GTK
/// main context (``GTKMainContext``); decoding and processing stay in the pipeline.
///
/// Transitions are drawn on the frame clock: `.fade` cross-fades from the old image to the new one. (The flips are
/// drawn as fades for now.)
public final class KFImageView: KingfisherImageTarget {
    public let kingfisherState = KingfisherTargetState()
    /// The widget to put in a window.
    public let widget: GTKObject<GtkWidget>
    /// Shows the image.
    let front: GTKObject<GtkWidget>
    /// Shows the image being faded out during a transition.
    let back: GTKObject<GtkWidget>
    let spinner: GTKObject<GtkWidget>
    private let shown = Locked<KFCrossPlatformImage?>(nil)
    /// Bumped by every image set: a transition for an older one stops.
    private let generation = Locked(0)

    /// A view of `width` x `height` points (its size request; it may grow).
    /// - Precondition: called on the GTK thread.
    public init(width: Int32 = -1, height: Int32 = -1) {
        precondition(GTKMainContext.isCurrent, "KFImageView must be created on the GTK thread")
        let overlay = gtk_overlay_new()!
        let back = gtk_picture_new()!
        let front = gtk_picture_new()!
        let spinner = gtk_spinner_new()!
        for picture in [back, front] {
            gtk_picture_set_can_shrink(cgtk_picture(picture), 1)
            gtk_picture_set_content_fit(cgtk_picture(picture), GTK_CONTENT_FIT_CONTAIN)
        }
        gtk_overlay_set_child(cgtk_overlay(overlay), back)
        gtk_overlay_add_overlay(cgtk_overlay(overlay), front)
        gtk_widget_set_halign(spinner, GTK_ALIGN_CENTER)
        gtk_widget_set_valign(spinner, GTK_ALIGN_CENTER)
        gtk_widget_set_size_request(spinner, 32, 32)
        gtk_widget_set_visible(spinner, 0)
        gtk_overlay_add_overlay(cgtk_overlay(overlay), spinner)
        gtk_widget_set_size_request(overlay, width, height)
        // The view keeps its widget alive, whatever the window does with it.
        _ = cgtk_object_ref_sink(overlay)
        widget = GTKObject(overlay)
        self.front = GTKObject(front)
        self.back = GTKObject(back)
        self.spinner = GTKObject(spinner)
    }

    deinit {
        let widget = self.widget
        GTKMainContext.perform { cgtk_object_unref(widget.pointer) }
    }

    public var image: KFCrossPlatformImage? {
        get { shown.withLock { $0 } }
        set {
            shown.withLock { $0 = newValue }
            generation.withLock { $0 += 1 }
            let front = self.front
            let back = self.back
            GTKMainContext.perform {
                Self.show(newValue, in: front)
                Self.show(nil, in: back)
                gtk_widget_set_opacity(front.pointer, 1)
            }
        }
    }

    /// Sets `image` as the picture's paintable (a texture of its first frame), or clears it.
    static func show(_ image: KFCrossPlatformImage?, in picture: GTKObject<GtkWidget>) {
        guard let image, image.pixelWidth > 0, image.pixelHeight > 0 else {
            gtk_picture_set_paintable(cgtk_picture(picture.pointer), nil)
            return
        }
        let pixels = image.kf.rgbaPixels()
        let texture = pixels.withUnsafeBufferPointer {
            cgtk_texture_rgba($0.baseAddress, Int32(image.pixelWidth), Int32(image.pixelHeight))
        }
        gtk_picture_set_paintable(cgtk_picture(picture.pointer), cgtk_texture_paintable(texture))
        cgtk_object_unref(UnsafeMutableRawPointer(texture))
    }

    // MARK: - Indicators

    public func addIndicator(_ indicator: any Indicator) {
        guard let activity = indicator as? ActivityIndicator else { return }
        let spinner = self.spinner
        activity.onChange = { state in
            GTKMainContext.perform { Self.spin(spinner, state.isAnimating) }
        }
        let animating = activity.state.isAnimating
        GTKMainContext.perform { Self.spin(spinner, animating) }
    }

    public func removeIndicator(_ indicator: any Indicator) {
        guard let activity = indicator as? ActivityIndicator else { return }
        activity.onChange = nil
        let spinner = self.spinner
        GTKMainContext.perform { Self.spin(spinner, false) }
    }

    private static func spin(_ spinner: GTKObject<GtkWidget>, _ on: Bool) {
        gtk_widget_set_visible(spinner.pointer, on ? 1 : 0)
        if on {
            gtk_spinner_start(cgtk_spinner(spinner.pointer))
        } else {
            gtk_spinner_stop(cgtk_spinner(spinner.pointer))
        }
    }

    // MARK: - Transitions

    public func transition(
        _ transition: ImageTransition, from oldImage: KFCrossPlatformImage?, to newImage: KFCrossPlatformImage,
        completion: @escaping @Sendable (Bool) -> Void
    ) {
        let duration: TimeInterval
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
            duration = seconds
        case .fade(let seconds), .flipFromLeft(let seconds), .flipFromRight(let seconds),
            .flipFromTop(let seconds), .flipFromBottom(let seconds):
            duration = seconds
        }
        shown.withLock { $0 = newImage }
        let mine = generation.withLock { value -> Int in
            value += 1
            return value
        }
        let fade = Fade(
            view: self, generation: mine, duration: max(0.001, duration), completion: completion)
        let front = self.front
        let back = self.back
        GTKMainContext.perform {
            Self.show(oldImage, in: back)
            Self.show(newImage, in: front)
            gtk_widget_set_opacity(front.pointer, 0)
            let box = Unmanaged.passRetained(fade).toOpaque()
            _ = cgtk_add_tick(
                front.pointer,
                { data, frameTime in
                    guard let data else { return 0 }
                    return Unmanaged<Fade>.fromOpaque(data).takeUnretainedValue().step(at: Int64(frameTime)) ? 1 : 0
                }, box,
                { data in
                    guard let data else { return }
                    Unmanaged<Fade>.fromOpaque(data).release()
                })
        }
    }

    /// The fraction of the transition shown now, for tests: the front picture's opacity.
    var frontOpacity: Double { gtk_widget_get_opacity(front.pointer) }

    fileprivate func isCurrent(_ generation: Int) -> Bool { self.generation.withLock { $0 == generation } }

    /// One cross-fade, stepped by the frame clock.
    private final class Fade: @unchecked Sendable {
        // @unchecked: only touched on the GTK main context (created before the hop, then read there only).
        weak var view: KFImageView?
        let generation: Int
        let duration: TimeInterval
        let completion: @Sendable (Bool) -> Void
        var start: Int64?
        var finished = false

        init(view: KFImageView, generation: Int, duration: TimeInterval, completion: @escaping @Sendable (Bool) -> Void)
        {
            self.view = view
            self.generation = generation
            self.duration = duration
            self.completion = completion
        }

        /// Sets the opacity for `frameTime` (µs); false once done (or superseded).
        func step(at frameTime: Int64) -> Bool {
            guard let view, view.isCurrent(generation) else {
                finish(false)
                return false
            }
            let start = self.start ?? frameTime
            self.start = start
            let progress = min(1, Double(frameTime - start) / (duration * 1_000_000))
            gtk_widget_set_opacity(view.front.pointer, progress)
            guard progress >= 1 else { return true }
            KFImageView.show(nil, in: view.back)
            finish(true)
            return false
        }

        private func finish(_ done: Bool) {
            guard !finished else { return }
            finished = true
            completion(done)
        }
    }
}

/// Any GTK widget as a placeholder: laid over a ``KFImageView`` while its image loads, removed when the load ends
/// (Kingfisher's "a label as a placeholder").
public struct GTKWidgetPlaceholder: Placeholder {
    public let widget: GTKObject<GtkWidget>

    /// - Parameter widget: the widget to show; the placeholder keeps a reference to it.
    public init(_ widget: UnsafeMutablePointer<GtkWidget>) {
        _ = cgtk_object_ref_sink(widget)
        self.widget = GTKObject(widget)
    }

    public func add(to target: any KingfisherImageTarget) {
        guard let view = target as? KFImageView else { return }
        let widget = self.widget
        let overlay = view.widget
        GTKMainContext.perform {
            guard gtk_widget_get_parent(widget.pointer) == nil else { return }
            gtk_overlay_add_overlay(cgtk_overlay(overlay.pointer), widget.pointer)
        }
    }

    public func remove(from target: any KingfisherImageTarget) {
        guard let view = target as? KFImageView else { return }
        let widget = self.widget
        let overlay = view.widget
        GTKMainContext.perform {
            guard gtk_widget_get_parent(widget.pointer) == overlay.pointer else { return }
            gtk_overlay_remove_overlay(cgtk_overlay(overlay.pointer), widget.pointer)
        }
    }
}
