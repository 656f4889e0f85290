public import CGtk
import Foundation
public import Kingfisher

/// An indicator with a GTK widget of its own (Kingfisher's `.custom(indicator:)` with a view): a ``KFImageView``
/// lays ``widget`` over its centre (moved by ``Indicator/centerOffset``) while the indicator is set, and the
/// indicator shows and hides it in `startAnimatingView()` / `stopAnimatingView()`, on the GTK main context
/// (``GTKMainContext/perform(_:)``).
public protocol GTKIndicator: Indicator {
    /// The widget to lay over the view.
    var widget: GTKObject<GtkWidget> { get }
}

extension KFImageView {
    /// The indicator widget laid over the view. Only used on the GTK thread.
    // @unchecked: created with the view, then read and changed on the GTK main context only.
    final class IndicatorSlot: @unchecked Sendable {
        var widget: GTKObject<GtkWidget>?
        /// The small view playing an `.image` indicator's image.
        var imageView: KFImageView?
    }

    /// The widget that shows the view's indicator, as Kingfisher's `indicator.view`: the spinner for
    /// `.activity`, the image's view for `.image`, a ``GTKIndicator``'s widget; `nil` without an indicator. It is
    /// hidden while the indicator is stopped. On the GTK thread.
    public var indicatorWidget: GTKObject<GtkWidget>? {
        precondition(GTKMainContext.isCurrent, "indicatorWidget belongs on the GTK thread")
        if kf.indicator is ActivityIndicator { return spinner }
        return indicatorSlot.widget
    }

    public func addIndicator(_ indicator: any Indicator) {
        switch indicator {
        case let activity as ActivityIndicator:
            let spinner = self.spinner
            activity.onChange = { [weak self] state in
                GTKMainContext.performNowIfCurrent { [weak self] in
                    // Stopped at the end of a load: it stays drawn until the image can be (or this turn ends).
                    if !state.isAnimating { self?.holdWhatIsShown() }
                    Self.spin(spinner, state.isAnimating)
                }
            }
            let animating = activity.state.isAnimating
            let offset = activity.centerOffset
            GTKMainContext.performNowIfCurrent {
                Self.centre(spinner.pointer, movedBy: offset)
                Self.spin(spinner, animating)
            }
        case let imageIndicator as ImageIndicator:
            let image = imageIndicator.image
            let offset = imageIndicator.centerOffset
            GTKMainContext.performNowIfCurrent { [weak self] in
                guard let self else { return }
                // The image at its point size, playing while shown (its frame clock stops while it is hidden).
                let small = KFImageView(
                    width: Int32((image.size.width).rounded()), height: Int32((image.size.height).rounded()))
                small.image = image
                gtk_widget_set_visible(small.widget.pointer, imageIndicator.state.isAnimating ? 1 : 0)
                self.lay(small.widget, offset: offset)
                self.indicatorSlot.imageView = small
            }
            let slot = indicatorSlot
            imageIndicator.onChange = { [weak self] state in
                GTKMainContext.performNowIfCurrent { [weak self] in
                    guard let small = slot.imageView else { return }
                    if !state.isAnimating { self?.holdWhatIsShown() }
                    gtk_widget_set_visible(small.widget.pointer, state.isAnimating ? 1 : 0)
                }
            }
        case let widgetIndicator as any GTKIndicator:
            let widget = widgetIndicator.widget
            let offset = widgetIndicator.centerOffset
            GTKMainContext.performNowIfCurrent { [weak self] in
                // Hidden until the indicator's start shows it, as Kingfisher adds indicator views.
                gtk_widget_set_visible(widget.pointer, 0)
                self?.lay(widget, offset: offset)
            }
        default:
            break
        }
    }

    public func removeIndicator(_ indicator: any Indicator) {
        switch indicator {
        case let activity as ActivityIndicator:
            activity.onChange = nil
            let spinner = self.spinner
            GTKMainContext.performNowIfCurrent { Self.spin(spinner, false) }
        case let imageIndicator as ImageIndicator:
            imageIndicator.onChange = nil
            GTKMainContext.performNowIfCurrent { [weak self] in self?.unlayIndicator() }
        case is any GTKIndicator:
            GTKMainContext.performNowIfCurrent { [weak self] in self?.unlayIndicator() }
        default:
            break
        }
    }

    /// Lays `widget` over the view's centre, moved by `offset` points. On the GTK thread.
    private func lay(_ widget: GTKObject<GtkWidget>, offset: CGPoint) {
        unlayIndicator()
        let pointer = widget.pointer
        Self.centre(pointer, movedBy: offset)
        if gtk_widget_get_parent(pointer) == nil {
            gtk_overlay_add_overlay(cgtk_overlay(self.widget.pointer), pointer)
        }
        indicatorSlot.widget = widget
    }

    /// Takes the indicator widget laid over the view away. On the GTK thread.
    private func unlayIndicator() {
        if let laid = indicatorSlot.widget, gtk_widget_get_parent(laid.pointer) == widget.pointer {
            gtk_overlay_remove_overlay(cgtk_overlay(widget.pointer), laid.pointer)
        }
        indicatorSlot.widget = nil
        indicatorSlot.imageView = nil
    }

    /// Centres `widget` in the overlay, moved by `offset` points. On the GTK thread.
    private static func centre(_ widget: UnsafeMutablePointer<GtkWidget>, movedBy offset: CGPoint) {
        gtk_widget_set_halign(widget, GTK_ALIGN_CENTER)
        gtk_widget_set_valign(widget, GTK_ALIGN_CENTER)
        // A centred child sits in the middle of its margins: twice the offset on one side moves it by the offset.
        let dx = Int32((offset.x * 2).rounded())
        let dy = Int32((offset.y * 2).rounded())
        gtk_widget_set_margin_start(widget, max(0, dx))
        gtk_widget_set_margin_end(widget, max(0, -dx))
        gtk_widget_set_margin_top(widget, max(0, dy))
        gtk_widget_set_margin_bottom(widget, max(0, -dy))
    }

    static func spin(_ spinner: GTKObject<GtkWidget>, _ on: Bool) {
        gtk_widget_set_visible(spinner.pointer, on ? 1 : 0)
        if on {
            gtk_spinner_start(cgtk_spinner(spinner.pointer))
        } else {
            gtk_spinner_stop(cgtk_spinner(spinner.pointer))
        }
    }
}
