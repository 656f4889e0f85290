import CGtk
import KfCommandKit
import Kingfisher
import KingfisherGTK

/// One tile of the gallery: a view, its source, and where its load is. Used on the GTK thread only.
final class GalleryCell {
    enum State {
        /// Nothing shown or loading (never visible yet, or released when far away).
        case idle
        /// Its load runs.
        case loading
        /// Its image is shown.
        case shown
        /// Its load failed: it shows a failure mark and is not tried again.
        case failed
    }

    let index: Int
    let source: Source
    /// The source as the user gave it (in messages and the tooltip of a failed tile).
    let sourceText: String
    let view: KFImageView
    /// The widget shown over the view while it loads, when the gallery has no placeholder image: the source's name
    /// at the tile's foot, when the tile has room for it clear of the spinner (`nil` when not: the name is in the
    /// tile's tooltip).
    let label: GTKWidgetPlaceholder?
    /// The side of the spinner in points: as large as leaves the label clear, 16 to 32.
    let spinnerSide: Int32
    var state = State.idle
    /// Bumped by each load started: a completion for an older one is ignored.
    var generation = 0
    /// Whether it was ever on screen.
    var wasVisible = false
    private let width: Int32
    /// The height the name label takes at the foot (its margin included); 0 without one.
    private let footHeight: Int32

    init(index: Int, source: SourceArgument, width: Int32, height: Int32) {
        self.index = index
        self.source = source.source
        sourceText = source.text
        self.width = width
        view = KFImageView(width: width, height: height)
        view.contentMode = .scaleAspectFill
        gtk_widget_set_tooltip_text(view.widget.pointer, source.baseName)
        let label = Self.nameLabel(source.baseName, width: width, small: width < 100)
        // The label sits at the foot, the spinner in the middle: the spinner may be as large as leaves a gap of a
        // point above the label.
        let margin: Int32 = 3
        var labelHeight: Int32 = 0
        gtk_widget_measure(label, GTK_ORIENTATION_VERTICAL, max(1, width - 16), nil, &labelHeight, nil, nil)
        let room = height - 2 * (labelHeight + margin + 1)
        if room >= 16 {
            gtk_widget_set_margin_bottom(label, margin)
            self.label = GTKWidgetPlaceholder(label)
            spinnerSide = min(32, room)
            footHeight = labelHeight + margin
        } else {
            // Too small a tile for both: the spinner alone, the name in the tooltip.
            cgtk_object_unref(cgtk_object_ref_sink(label))
            self.label = nil
            spinnerSide = max(16, min(32, height / 2))
            footHeight = 0
        }
    }

    /// The source's name, ellipsized in the middle, faint, at the foot of the tile.
    private static func nameLabel(_ name: String, width: Int32, small: Bool) -> UnsafeMutablePointer<GtkWidget> {
        let label = gtk_label_new(name)!
        // A fixed width: a label left to find its own width in an overlay keeps asking for a new layout.
        gtk_widget_set_size_request(label, max(1, width - 16), -1)
        gtk_label_set_ellipsize(cgtk_label(label), PANGO_ELLIPSIZE_MIDDLE)
        gtk_widget_set_opacity(label, 0.7)
        gtk_widget_set_valign(label, GTK_ALIGN_END)
        if small {
            // Pango's "small" (1 / 1.2): a small tile keeps its name in a line that leaves the spinner room.
            let attributes = pango_attr_list_new()
            pango_attr_list_insert(attributes, pango_attr_scale_new(1 / 1.2))
            gtk_label_set_attributes(cgtk_label(label), attributes)
            pango_attr_list_unref(attributes)
        }
        return label
    }

    /// Shows the spinner while the tile loads, sized to leave its label clear.
    func useSpinner() {
        view.kf.indicatorType = .activity
        if let spinner = view.indicatorWidget { gtk_widget_set_size_request(spinner.pointer, spinnerSide, spinnerSide) }
    }

    /// Marks the tile as failed: a red cross in its middle, with the reason under it when the tile is wide enough,
    /// and `SOURCE: reason` in its tooltip. Its placeholder stays, as Kingfisher leaves it on a failure.
    func showFailure(reason: String) {
        gtk_widget_set_tooltip_text(view.widget.pointer, "\(sourceText): \(reason)")
        let box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        let mark = gtk_label_new(nil)!
        gtk_label_set_markup(cgtk_label(mark), "<span foreground=\"#c01c28\" weight=\"bold\" size=\"x-large\">✕</span>")
        gtk_box_append(cgtk_box(box), mark)
        if width >= 100 {
            let line = gtk_label_new(reason)!
            gtk_widget_set_size_request(line, width - 16, -1)
            gtk_label_set_ellipsize(cgtk_label(line), PANGO_ELLIPSIZE_END)
            gtk_box_append(cgtk_box(box), line)
        }
        gtk_widget_set_halign(box, GTK_ALIGN_CENTER)
        // In the middle of what the name label leaves, when it shows (not under a placeholder image).
        gtk_widget_set_valign(box, GTK_ALIGN_CENTER)
        if let label, gtk_widget_get_parent(label.widget.pointer) == view.widget.pointer {
            gtk_widget_set_margin_bottom(box, footHeight)
        }
        gtk_widget_set_can_target(box, 0)
        gtk_overlay_add_overlay(cgtk_overlay(view.widget.pointer), box)
    }
}
