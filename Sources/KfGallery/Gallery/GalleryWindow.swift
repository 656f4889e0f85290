import CGtk
import Foundation
import KfCommandKit
import KingfisherGTK

/// The gallery's window: a scrolled grid of ``GalleryCell`` views, and which of their rows are on screen. Made and
/// used on the GTK thread.
final class GalleryWindow {
    struct Layout {
        var columns: Int
        var cellWidth: Int
        var cellHeight: Int
        var spacing = 6
        var rowPitch: Double { Double(cellHeight + spacing) }
    }

    let window: GTKObject<GtkWidget>
    let adjustment: UnsafeMutablePointer<GtkAdjustment>
    let cells: [GalleryCell]
    let layout: Layout

    init(title: String, width: Int32, height: Int32, layout: Layout, cells: [GalleryCell]) {
        self.layout = layout
        self.cells = cells
        let window = gtk_window_new()!
        gtk_window_set_title(cgtk_window(window), title)
        gtk_window_set_default_size(cgtk_window(window), width, height)
        // Closing hides the window; the program ends when it is hidden.
        gtk_window_set_hide_on_close(cgtk_window(window), 1)
        let grid = gtk_grid_new()!
        let spacing = UInt32(layout.spacing)
        gtk_grid_set_row_spacing(cgtk_grid(grid), spacing)
        gtk_grid_set_column_spacing(cgtk_grid(grid), spacing)
        gtk_widget_set_halign(grid, GTK_ALIGN_CENTER)
        gtk_widget_set_valign(grid, GTK_ALIGN_START)
        for cell in cells {
            let (row, column) = cell.index.quotientAndRemainder(dividingBy: layout.columns)
            gtk_grid_attach(cgtk_grid(grid), cell.view.widget.pointer, Int32(column), Int32(row), 1, 1)
        }
        let scroller = gtk_scrolled_window_new()!
        gtk_scrolled_window_set_policy(cgtk_scrolled_window(scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC)
        gtk_scrolled_window_set_child(cgtk_scrolled_window(scroller), grid)
        gtk_window_set_child(cgtk_window(window), scroller)
        _ = cgtk_object_ref(window)
        self.window = GTKObject(window)
        adjustment = gtk_scrolled_window_get_vadjustment(cgtk_scrolled_window(scroller))
    }

    deinit { cgtk_object_unref(window.pointer) }

    func present() { gtk_window_present(cgtk_window(window.pointer)) }

    /// Whether the window is still open.
    var isOpen: Bool { gtk_widget_get_visible(window.pointer) != 0 }

    var rowCount: Int { (cells.count + layout.columns - 1) / layout.columns }

    /// The rows that are on screen now (any part of them).
    var visibleRows: Range<Int> {
        let top = gtk_adjustment_get_value(adjustment)
        let page = gtk_adjustment_get_page_size(adjustment)
        guard page > 0, rowCount > 0 else { return 0..<0 }
        // Row r spans r * pitch ..< r * pitch + cellHeight; the gap below it does not count.
        let first = max(0, Int((top + Double(layout.spacing)) / layout.rowPitch))
        let last = min(rowCount, Int(((top + page) / layout.rowPitch).rounded(.up)))
        return first..<max(first, last)
    }

    /// The cells of `rows` (clamped to the grid).
    func cells(in rows: Range<Int>) -> ArraySlice<GalleryCell> {
        let lower = min(cells.count, max(0, rows.lowerBound) * layout.columns)
        let upper = min(cells.count, max(0, rows.upperBound) * layout.columns)
        return cells[lower..<max(lower, upper)]
    }

    /// Scrolls so that `fraction` (0...1) of the way down is at the top.
    /// Moves toward `fraction` of the way down, at most half a screen: a script that steps with it shows every
    /// row however late its frames come. True once the bottom is reached.
    func scroll(toward fraction: Double) -> Bool {
        let page = gtk_adjustment_get_page_size(adjustment)
        let bottom = max(0, gtk_adjustment_get_upper(adjustment) - page)
        let current = gtk_adjustment_get_value(adjustment)
        let target = bottom * min(1, max(0, fraction))
        let next = min(target, current + page / 2)
        gtk_adjustment_set_value(adjustment, next)
        return next >= bottom
    }

    /// Calls `body` after the visible rows may have changed (scrolled, resized): once the main loop is idle, not
    /// inside the layout that moved them (a load started there would change the layout under way).
    func onScroll(_ body: @escaping () -> Void) {
        let pending = GTKThreadBound(ScrollPending(body))
        let schedule = {
            guard !pending.value.scheduled else { return }
            pending.value.scheduled = true
            GTKMainContext.performWhenIdle {
                pending.value.scheduled = false
                pending.value.body()
            }
        }
        GTKCallbacks.connect(adjustment, "value-changed", schedule)
        GTKCallbacks.connect(adjustment, "changed", schedule)
    }

    private final class ScrollPending {
        let body: () -> Void
        var scheduled = false
        init(_ body: @escaping () -> Void) { self.body = body }
    }
}
