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
        /// Its load failed: it keeps its placeholder and is not tried again.
        case failed
    }

    let index: Int
    let source: Source
    let view: KFImageView
    /// The widget shown over the view while it loads, when the gallery has no placeholder image: the source's name.
    let label: GTKWidgetPlaceholder
    var state = State.idle
    /// Bumped by each load started: a completion for an older one is ignored.
    var generation = 0
    /// Whether it was ever on screen.
    var wasVisible = false

    init(index: Int, source: Source, name: String, width: Int32, height: Int32) {
        self.index = index
        self.source = source
        view = KFImageView(width: width, height: height)
        view.contentMode = .scaleAspectFill
        let label = gtk_label_new(name)!
        // A fixed width: a label left to find its own width in an overlay keeps asking for a new layout.
        gtk_widget_set_size_request(label, max(1, width - 16), -1)
        gtk_label_set_ellipsize(cgtk_label(label), PANGO_ELLIPSIZE_MIDDLE)
        gtk_widget_set_opacity(label, 0.7)
        // At the foot of the tile, clear of the spinner in its middle (a centred label sat under it).
        gtk_widget_set_valign(label, GTK_ALIGN_END)
        gtk_widget_set_margin_bottom(label, 4)
        self.label = GTKWidgetPlaceholder(label)
    }
}
