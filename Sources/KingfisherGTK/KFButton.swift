public import CGtk
import Foundation
public import Kingfisher
import KingfisherLocking

/// A GTK 4 toggle button showing images loaded with Kingfisher, as AppKit's `NSButton`: `button.kf.setImage(with:)`
/// sets ``image``, `button.kf.setAlternateImage(with:)` sets ``alternateImage``, shown while the button is on
/// (pressed in). Its ``widget`` (a `GtkToggleButton`) goes into a window like any GTK widget; the picture inside is
/// drawn by a ``KFImageView``.
///
/// Create it on the GTK thread. Kingfisher calls it, and the loads' progress and completion handlers, on the GTK
/// thread, as it calls an `NSButton` on the main queue.
public final class KFButton: KingfisherImageTarget {
    public let kingfisherState = KingfisherTargetState(performingCallsWith: GTKMainContext.performNowIfCurrent)
    /// The widget to put in a window: a `GtkToggleButton`.
    public let widget: GTKObject<GtkWidget>
    /// Draws the image shown.
    let face: KFImageView
    /// The target `setAlternateImage` loads into.
    let alternate: AlternateImageSlot
    private let images = Locked<(image: KFCrossPlatformImage?, alternate: KFCrossPlatformImage?)>((nil, nil))

    /// A button whose picture is `width` x `height` points (its size request; it may grow).
    /// - Precondition: called on the GTK thread.
    public init(width: Int32 = -1, height: Int32 = -1) {
        precondition(GTKMainContext.isCurrent, "KFButton must be created on the GTK thread")
        let button = gtk_toggle_button_new()!
        face = KFImageView(width: width, height: height)
        gtk_button_set_child(cgtk_button(button), face.widget.pointer)
        // The button keeps its widget alive, whatever the window does with it.
        _ = cgtk_object_ref_sink(button)
        widget = GTKObject(button)
        alternate = AlternateImageSlot()
        alternate.button = self
        GTKCallbacks.connect(button, "toggled") { [weak self] in self?.showCurrentImage() }
    }

    deinit {
        let widget = self.widget
        GTKMainContext.perform { cgtk_object_unref(widget.pointer) }
    }

    /// The image shown while the button is off; Kingfisher's `setImage` sets it.
    public var image: KFCrossPlatformImage? {
        get { images.withLock { $0.image } }
        set {
            images.withLock { $0.image = newValue }
            GTKMainContext.performNowIfCurrent { [weak self] in self?.showCurrentImage() }
        }
    }

    /// The image shown while the button is on (`nil`: ``image`` then); `setAlternateImage` sets it.
    public var alternateImage: KFCrossPlatformImage? {
        get { images.withLock { $0.alternate } }
        set {
            images.withLock { $0.alternate = newValue }
            GTKMainContext.performNowIfCurrent { [weak self] in self?.showCurrentImage() }
        }
    }

    /// Whether the button is on (pressed in). On the GTK thread.
    public var isOn: Bool {
        get {
            precondition(GTKMainContext.isCurrent, "isOn belongs on the GTK thread")
            return gtk_toggle_button_get_active(cgtk_toggle_button(widget.pointer)) != 0
        }
        set {
            precondition(GTKMainContext.isCurrent, "isOn belongs on the GTK thread")
            gtk_toggle_button_set_active(cgtk_toggle_button(widget.pointer), newValue ? 1 : 0)
        }
    }

    /// Puts the image for the button's state on its face. On the GTK thread.
    private func showCurrentImage() {
        let (image, alternate) = images.withLock { ($0.image, $0.alternate) }
        let shown = isOn ? (alternate ?? image) : image
        if face.image !== shown { face.image = shown }
    }

    /// The button's alternate image as a target of its own, so that its load, task and placeholder are apart from
    /// the image's.
    final class AlternateImageSlot: KingfisherImageTarget {
        let kingfisherState = KingfisherTargetState(performingCallsWith: GTKMainContext.performNowIfCurrent)
        private let owner = Locked<WeakButton>(WeakButton())
        var button: KFButton? {
            get { owner.withLock { $0.button } }
            set { owner.withLock { $0.button = newValue } }
        }
        var image: KFCrossPlatformImage? {
            get { button?.alternateImage }
            set { button?.alternateImage = newValue }
        }
    }

    struct WeakButton {
        weak var button: KFButton?
    }
}

extension KingfisherWrapper where Base == KFButton {
    /// Loads the image of `source` into the button's ``KFButton/alternateImage``, with the rules of `setImage`
    /// (placeholder image, `onFailureImage`; no indicator or transition, as for `NSButton`).
    @discardableResult
    public func setAlternateImage(
        with source: Source?,
        placeholder: KFCrossPlatformImage? = nil,
        options: KingfisherOptionsInfo? = nil,
        progressBlock: DownloadProgressBlock? = nil,
        completionHandler: (@Sendable (Result<RetrieveImageResult, KingfisherError>) -> Void)? = nil
    ) -> DownloadTask? {
        base.alternate.kf.setImage(
            with: source, placeholder: placeholder, options: options, progressBlock: progressBlock,
            completionHandler: completionHandler)
    }

    /// Loads the image of `resource` into the button's ``KFButton/alternateImage``. See
    /// ``setAlternateImage(with:placeholder:options:progressBlock:completionHandler:)-(Source?,_,_,_,_)``.
    @discardableResult
    public func setAlternateImage(
        with resource: (any Resource)?,
        placeholder: KFCrossPlatformImage? = nil,
        options: KingfisherOptionsInfo? = nil,
        progressBlock: DownloadProgressBlock? = nil,
        completionHandler: (@Sendable (Result<RetrieveImageResult, KingfisherError>) -> Void)? = nil
    ) -> DownloadTask? {
        setAlternateImage(
            with: resource?.convertToSource(), placeholder: placeholder, options: options,
            progressBlock: progressBlock, completionHandler: completionHandler)
    }

    /// Loads the image of `source` into ``KFButton/alternateImage``; a trailing closure is the completion handler.
    @discardableResult
    public func setAlternateImage(
        with source: Source?,
        placeholder: KFCrossPlatformImage? = nil,
        options: KingfisherOptionsInfo? = nil,
        completionHandler: (@Sendable (Result<RetrieveImageResult, KingfisherError>) -> Void)? = nil
    ) -> DownloadTask? {
        setAlternateImage(
            with: source, placeholder: placeholder, options: options, progressBlock: nil,
            completionHandler: completionHandler)
    }

    /// Loads the image of `resource` into ``KFButton/alternateImage``; a trailing closure is the completion
    /// handler.
    @discardableResult
    public func setAlternateImage(
        with resource: (any Resource)?,
        placeholder: KFCrossPlatformImage? = nil,
        options: KingfisherOptionsInfo? = nil,
        completionHandler: (@Sendable (Result<RetrieveImageResult, KingfisherError>) -> Void)? = nil
    ) -> DownloadTask? {
        setAlternateImage(
            with: resource?.convertToSource(), placeholder: placeholder, options: options, progressBlock: nil,
            completionHandler: completionHandler)
    }

    /// Cancels the load of ``KFButton/image`` (`NSButton`'s name for `cancelDownloadTask()`).
    public func cancelImageDownloadTask() {
        cancelDownloadTask()
    }

    /// Cancels the load of ``KFButton/alternateImage``.
    public func cancelAlternateImageDownloadTask() {
        base.alternate.kf.cancelDownloadTask()
    }

    /// The identifier of the alternate image's load the button waits for; `nil` when it waits for none.
    public var alternateTaskIdentifier: Source.Identifier.Value? {
        base.alternate.kf.taskIdentifier
    }
}
