import CGtk
import Foundation
import KfCommandKit
import Kingfisher
import KingfisherGTK

/// What the gallery loads, decided again whenever it scrolls: cells on screen load (placeholder, spinner,
/// transition); a cell that leaves the screen while loading has its load cancelled; images far off screen are let
/// go (the memory cache keeps them); the rows ahead in the scrolling direction are prefetched as bytes only, onto
/// the disk cache, so a view that is never shown is never decoded. On the GTK thread.
final class GalleryLoads {
    struct Settings {
        /// Options of the views' loads (transition, callback queue...); each adds a thumbnail processor.
        var options: KingfisherOptionsInfo
        /// A tile's size in points: thumbnails are made this size times the view's scale factor.
        var tileSize: CGSize
        /// Options of the prefetches: the original bytes go to disk, nothing is decoded.
        var prefetchOptions: KingfisherOptionsInfo
        var placeholder: KFCrossPlatformImage?
        /// Rows ahead of the screen to prefetch; 0 for none.
        var prefetchRows: Int
        /// Rows beyond the screen whose images stay in their views.
        var keepRows: Int
    }

    private let window: GalleryWindow
    private let manager: KingfisherManager
    private let settings: Settings
    private(set) var counts = GalleryCounts()
    /// Each loaded source's image size in pixels, `WxH`, by the source as given.
    private(set) var imagePixels: [String: String] = [:]
    private var lastFirstRow = 0
    private var scrollingUp = false
    /// Prefetches under way, each with the cells it fetches for.
    private var prefetches: [(cells: Set<Int>, prefetcher: ImagePrefetcher)] = []
    private var prefetched: Set<Int> = []

    init(window: GalleryWindow, manager: KingfisherManager, settings: Settings) {
        self.window = window
        self.manager = manager
        self.settings = settings
    }

    /// Brings the loads in line with what is on screen now.
    func refresh() {
        let visible = window.visibleRows
        if visible.lowerBound != lastFirstRow {
            scrollingUp = visible.lowerBound < lastFirstRow
            lastFirstRow = visible.lowerBound
        }
        let onScreen = window.cells(in: visible)
        for cell in onScreen {
            if !cell.wasVisible {
                cell.wasVisible = true
                counts.everVisible += 1
            }
            if cell.state == .idle { start(cell) }
        }
        let kept = (visible.lowerBound - settings.keepRows)..<(visible.upperBound + settings.keepRows)
        for cell in window.cells where !visible.contains(row(of: cell)) {
            switch cell.state {
            case .loading:
                cancel(cell)
            case .shown where !kept.contains(row(of: cell)):
                cell.generation += 1
                cell.view.image = nil
                cell.state = .idle
                counts.released += 1
            default:
                break
            }
        }
        prefetch(around: visible)
    }

    /// Loads under way.
    var running: Int { window.cells.filter { $0.state == .loading }.count }

    /// Counts the tiles on screen now that show their name label and their spinner, and whether the two overlap.
    func checkLabelsClearOfSpinners() {
        for cell in window.cells(in: window.visibleRows) {
            guard let label = cell.label?.widget.pointer, gtk_widget_get_parent(label) == cell.view.widget.pointer,
                gtk_widget_get_visible(label) != 0,
                let spinner = cell.view.indicatorWidget, gtk_widget_get_visible(spinner.pointer) != 0
            else { continue }
            var labelBounds = graphene_rect_t()
            var turned = graphene_rect_t()
            guard gtk_widget_compute_bounds(label, cell.view.widget.pointer, &labelBounds) != 0,
                gtk_widget_compute_bounds(spinner.pointer, cell.view.widget.pointer, &turned) != 0
            else { continue }
            // The spinner turns: its bounds are those of its square turned. The square itself, about the same centre.
            let width = Float(gtk_widget_get_width(spinner.pointer))
            let height = Float(gtk_widget_get_height(spinner.pointer))
            var square = graphene_rect_t(
                origin: graphene_point_t(
                    x: turned.origin.x + (turned.size.width - width) / 2,
                    y: turned.origin.y + (turned.size.height - height) / 2),
                size: graphene_size_t(width: width, height: height))
            counts.labelAndSpinnerShown += 1
            if graphene_rect_intersection(&labelBounds, &square, nil) { counts.labelOverSpinner += 1 }
        }
    }

    private func row(of cell: GalleryCell) -> Int { cell.index / window.layout.columns }

    private func start(_ cell: GalleryCell) {
        cell.state = .loading
        cell.generation += 1
        counts.started += 1
        let generation = cell.generation
        let handle = GTKThreadBound((self, cell))
        let placeholder: (any Placeholder)? = settings.placeholder ?? cell.label
        // Made for the pixels the tile fills (aspect-fill): in points, the processor makes it `.scaleFactor` times
        // larger in pixels (twice the points on a HiDPI monitor).
        let scale = cell.view.scaleFactor
        counts.scaleFactor = Double(scale)
        let options =
            settings.options + [.processor(TileThumbnailProcessor(tile: settings.tileSize)), .scaleFactor(scale)]
        cell.view.kf.setImage(
            with: cell.source, placeholder: placeholder, options: options, progressBlock: nil
        ) { result in
            // `.mainCurrentOrAsync`: Dispatch's main queue, drained by the GLib main loop, i.e. the GTK thread.
            let onGTKThread = GTKMainContext.isCurrent
            GTKMainContext.perform {
                let (loads, cell) = handle.value
                loads.finished(cell, generation: generation, result: result, onGTKThread: onGTKThread)
            }
        }
    }

    private func finished(
        _ cell: GalleryCell, generation: Int, result: Result<RetrieveImageResult, KingfisherError>,
        onGTKThread: Bool
    ) {
        if onGTKThread { counts.completedOnGTKThread += 1 }
        // The cell's current load (a load cancelled or let go since has a newer generation); it may already count as
        // shown when it was scrolled away while fading in.
        guard cell.generation == generation, cell.state == .loading || cell.state == .shown else { return }
        switch result {
        case .success(let loaded):
            counts.loaded += 1
            if cell.state == .loading { counts.shown += 1 }
            counts.widestImagePixels = max(counts.widestImagePixels, loaded.image.pixelWidth)
            imagePixels[cell.sourceText] = "\(loaded.image.pixelWidth)x\(loaded.image.pixelHeight)"
        case .failure(let error) where error.isTaskCancelled:
            cell.state = .idle
            return
        case .failure(let error):
            counts.failed += 1
            cell.state = .failed
            let reason = FailureMessage.reason(error, source: cell.sourceText)
            Console.error("error: \(cell.sourceText): \(reason)")
            cell.showFailure(reason: reason)
            counts.failureMarks += 1
            return
        }
        cell.state = .shown
    }

    private func cancel(_ cell: GalleryCell) {
        // Its image came and is fading in (the completion comes after the transition): nothing left to cancel.
        if let shown = cell.view.image, shown !== settings.placeholder {
            cell.state = .shown
            counts.shown += 1
            return
        }
        cell.generation += 1
        cell.state = .idle
        cell.view.kf.cancelDownloadTask()
        counts.cancelled += 1
    }

    /// Prefetches the rows ahead in the scrolling direction; stops prefetches whose rows are no longer near.
    private func prefetch(around visible: Range<Int>) {
        guard settings.prefetchRows > 0 else { return }
        let ahead =
            scrollingUp
            ? (visible.lowerBound - settings.prefetchRows)..<visible.lowerBound
            : visible.upperBound..<(visible.upperBound + settings.prefetchRows)
        let near = Set(
            window.cells(
                in: (visible.lowerBound - settings.prefetchRows)..<(visible.upperBound + settings.prefetchRows)
            )
            .map(\.index))
        prefetches.removeAll { prefetch in
            guard prefetch.cells.isDisjoint(with: near) else { return false }
            prefetch.prefetcher.stop()
            prefetched.subtract(prefetch.cells)
            return true
        }
        let wanted = window.cells(in: ahead).filter { cell in
            guard case .network = cell.source else { return false }  // a file needs no fetching ahead
            return cell.state == .idle && !cell.wasVisible && !prefetched.contains(cell.index)
        }
        guard !wanted.isEmpty else { return }
        let indices = Set(wanted.map(\.index))
        prefetched.formUnion(indices)
        counts.prefetchRequested += wanted.count
        let prefetcher = ImagePrefetcher(
            sources: wanted.map(\.source), options: settings.prefetchOptions, manager: manager)
        prefetches.append((indices, prefetcher))
        prefetcher.start()
    }
}

/// A value made and used on the GTK thread, carried through the `Sendable` closures that lead back to it.
// @unchecked: `value` is only touched inside GTKMainContext.perform, on the GTK thread.
struct GTKThreadBound<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
