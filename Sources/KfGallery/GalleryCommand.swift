import ArgumentParser
import CGtk
import Foundation
import KfCommandKit
import Kingfisher
import KingfisherGTK
import Metrics
import Prometheus

/// `kf gallery`: sources in a GTK window, a scrolling grid of `KFImageView`s loading what is on screen.
struct GalleryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kf gallery",
        abstract: "Show images in a window: a scrolling grid that loads what is on screen (GTK 4).",
        discussion: """
            SOURCE is an http(s) URL, a file:// URL or a file path. Each tile loads when it comes on screen, with a \
            placeholder, a spinner and a transition; a tile scrolled away before its image came has its load \
            cancelled; rows ahead are prefetched as bytes onto the disk cache. A tile whose load fails shows a red \
            cross with the reason, and standard error says `error: SOURCE: reason`. Needs a display (under none, run it \
            with xvfb-run). --screenshot and --screenshots write PNGs of the window and quit; times count from the \
            window's first frame.
            """)

    @Argument(help: "URLs or file paths.")
    var sources: [String] = []

    @Option(help: ArgumentHelp("Read sources from FILE, one per line (- for standard input).", valueName: "FILE"))
    var urlFile: String?

    @Option(help: ArgumentHelp("The window's size in points.", valueName: "WxH"))
    var size: String = "1000x720"

    @Option(help: ArgumentHelp("A tile's width in points (its height is three quarters of it).", valueName: "POINTS"))
    var cell: Int = 200

    @Option(help: ArgumentHelp("Tiles per row (default: as many as fit the window).", valueName: "N"))
    var columns: Int?

    @Option(
        help: ArgumentHelp("An image to show while each tile loads (default: the source's name).", valueName: "FILE"))
    var placeholder: String?

    @Option(
        help: ArgumentHelp(
            "none, fade:SECONDS, flip-left:SECONDS, flip-right:..., flip-top:... or flip-bottom:...",
            valueName: "SPEC"))
    var transition: TransitionArgument = TransitionArgument(argument: "fade:0.3")!

    @Flag(help: "Run the transition even when the image comes from a cache.")
    var forceTransition = false

    @Flag(help: "Show previews of progressive JPEGs while they download.")
    var progressive = false

    @Option(help: ArgumentHelp("Rows ahead of the screen to prefetch (0: none).", valueName: "ROWS"))
    var prefetch: Int = 2

    @Option(help: ArgumentHelp("Write a PNG of the window to FILE, then quit.", valueName: "FILE"))
    var screenshot: String?

    @Option(help: ArgumentHelp("When to take --screenshot.", valueName: "SECONDS"))
    var screenshotAfter: Double = 2

    @Option(help: ArgumentHelp("Write numbered PNGs of the window into DIR, then quit.", valueName: "DIR"))
    var screenshots: String?

    @Option(help: ArgumentHelp("The time between --screenshots.", valueName: "SECONDS"))
    var screenshotEvery: Double = 0.5

    @Option(help: ArgumentHelp("When to take the last of --screenshots.", valueName: "SECONDS"))
    var screenshotUntil: Double = 3

    @Option(
        help: ArgumentHelp(
            "End --screenshots SECONDS after the loads settle (none runs any more), if before --screenshot-until: "
                + "films every load and its transition however long the origin takes.",
            valueName: "SECONDS"))
    var screenshotSettle: Double?

    @Option(
        help: ArgumentHelp(
            "Scroll from the top to the bottom over SECONDS (at most half a screen a frame, so every row comes "
                + "on screen), then quit once the loads settle (for benchmarks).",
            valueName: "SECONDS"))
    var scrollThrough: Double?

    @Option(
        help: ArgumentHelp(
            "At the end, write what happened to FILE as JSON: loads, cancellations, decodes, frame times, peak RSS.",
            valueName: "FILE"))
    var report: String?

    @OptionGroup(title: "Cache")
    var cacheOptions: CacheOptions

    @OptionGroup(title: "Logging")
    var logging: LoggingOptions

    func validate() throws {
        if sources.isEmpty && urlFile == nil { throw ValidationError("Give at least one SOURCE, or --url-file.") }
        if windowSize == nil { throw ValidationError("--size must be WxH in points, e.g. 1000x720.") }
        if !(48...2000).contains(cell) { throw ValidationError("--cell must be 48 to 2000 points.") }
        if let columns, !(1...100).contains(columns) { throw ValidationError("--columns must be 1 to 100.") }
        if !(0...50).contains(prefetch) { throw ValidationError("--prefetch must be 0 to 50 rows.") }
        for (name, value) in [
            ("--screenshot-after", screenshotAfter), ("--screenshot-until", screenshotUntil),
            ("--screenshot-settle", screenshotSettle ?? 0), ("--scroll-through", scrollThrough ?? 1),
        ] where !(value >= 0 && value <= 3600) {
            throw ValidationError("\(name) must be 0 to 3600 seconds.")
        }
        if !(screenshotEvery >= 0.01 && screenshotEvery <= 3600) {
            throw ValidationError("--screenshot-every must be 0.01 to 3600 seconds.")
        }
    }

    private var windowSize: (width: Int32, height: Int32)? {
        let parts = size.lowercased().split(separator: "x").compactMap { Int32($0) }
        guard parts.count == 2, (100...10000).contains(parts[0]), (100...10000).contains(parts[1]) else { return nil }
        return (parts[0], parts[1])
    }

    func run() throws {
        // This runs on the process's main thread, before kf's async work starts: GTK takes the thread over.
        let logger = logging.bootstrap()
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        let named = try resolveSources()
        let placeholderImage = try PlaceholderFile.load(placeholder)
        // Decoding leaves one core to the main loop, as a desktop program should: frames are drawn on time while
        // tiles load.
        ImageEngine.Configuration.default.decodeConcurrency = max(1, ProcessInfo.processInfo.activeProcessorCount - 1)
        let cache = try cacheOptions.makeCache()
        let session = CommandSession(
            cache: cache, concurrency: 6, logger: logger, httpCachePolicy: cacheOptions.httpCachePolicy)

        _ = g_main_context_acquire(nil)
        guard gtk_init_check() != 0 else {
            throw CommandFailure(
                "kf gallery needs a display (DISPLAY or WAYLAND_DISPLAY is unset or unusable); run it under "
                    + "xvfb-run where there is none")
        }
        // Kingfisher's `.mainAsync` and `.mainCurrentOrAsync` callbacks run here, in GLib's main loop.
        GTKMainContext.attachDispatchMainQueue()

        let (width, height) = windowSize!
        let spacing = 6
        let fitting = max(1, (Int(width) - spacing) / (cell + spacing))
        let layout = GalleryWindow.Layout(
            columns: columns ?? fitting, cellWidth: cell, cellHeight: cell * 3 / 4, spacing: spacing)
        let cells = named.enumerated().map { index, source in
            GalleryCell(
                index: index, source: source, width: Int32(layout.cellWidth), height: Int32(layout.cellHeight))
        }
        let window = GalleryWindow(
            title: "kf gallery — \(named.count) image\(named.count == 1 ? "" : "s")", width: width, height: height,
            layout: layout, cells: cells)
        let loads = GalleryLoads(
            window: window, manager: session.manager,
            settings: loadSettings(layout: layout, cache: cache, placeholder: placeholderImage))
        window.onScroll { loads.refresh() }
        for cell in cells { cell.useSpinner() }
        let frames = FrameTimes()
        let runner = GalleryRunner(window: window, loads: loads, frames: frames, schedule: schedule)
        window.present()
        let failure = runner.run()

        let finished = DispatchSemaphore(value: 0)
        Task {
            await session.shutdown()
            finished.signal()
        }
        finished.wait()
        if let report {
            try GalleryReport(
                counts: loads.counts, frames: frames.summary, imagesDecoded: GalleryReport.decodes(in: registry),
                tiles: cells.count, imagePixels: loads.imagePixels, screenshots: runner.screenshotCounts
            ).write(to: URL(fileURLWithPath: (report as NSString).expandingTildeInPath))
        }
        if let failure { throw failure }
    }

    private var schedule: GallerySchedule {
        var schedule = GallerySchedule()
        let url = { (path: String) in URL(fileURLWithPath: (path as NSString).expandingTildeInPath) }
        if let screenshot { schedule.screenshot = (url(screenshot), screenshotAfter) }
        if let screenshots { schedule.series = (url(screenshots), screenshotEvery, screenshotUntil) }
        schedule.seriesSettle = screenshotSettle
        schedule.scrollSeconds = scrollThrough
        return schedule
    }

    /// The views' options: the transition, callbacks on the main queue (thumbnails the tile's size in device
    /// pixels are added per load); the prefetches' options: original bytes onto the disk cache, nothing decoded.
    private func loadSettings(
        layout: GalleryWindow.Layout, cache: ImageCache, placeholder: KFCrossPlatformImage?
    ) -> GalleryLoads.Settings {
        // Thumbnails go to the disk cache as JPEG: quick to write and to read back (PNG would cost a zlib pass each).
        var options: KingfisherOptionsInfo = [
            .targetCache(cache), .transition(transition.transition), .callbackQueue(.mainCurrentOrAsync),
            .cacheSerializer(FormatIndicatedCacheSerializer.jpeg(compressionQuality: 0.85)),
        ]
        if forceTransition { options.append(.forceTransition) }
        if progressive { options.append(.progressiveJPEG(ImageProgressive())) }
        var originals = DefaultCacheSerializer()
        originals.preferCacheOriginalData = true
        let prefetchOptions: KingfisherOptionsInfo = [
            .targetCache(cache), .cacheSerializer(originals), .downloadPriority(0.2),
        ]
        return GalleryLoads.Settings(
            options: options,
            tileSize: CGSize(width: CGFloat(layout.cellWidth), height: CGFloat(layout.cellHeight)),
            prefetchOptions: prefetchOptions, placeholder: placeholder, prefetchRows: prefetch,
            keepRows: 4)
    }

    private func resolveSources() throws -> [SourceArgument] {
        var resolved = try sources.map { text throws(CommandFailure) in try SourceArgument(text) }
        if let urlFile {
            let file = try URLFile(path: urlFile)
            if let bad = file.badLines.first {
                throw CommandFailure("\(bad)\(file.badLines.count > 1 ? " (and \(file.badLines.count - 1) more)" : "")")
            }
            resolved += file.sources
        }
        guard !resolved.isEmpty else { throw CommandFailure("no sources to show") }
        return resolved
    }
}
