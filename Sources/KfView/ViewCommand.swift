import ArgumentParser
import Foundation
import KfCommandKit
import Kingfisher
import KingfisherTerminal

/// `kf view`: sources shown in the terminal through `setImage`, with a placeholder, a spinner and transitions.
struct ViewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kf view",
        abstract: "Show images in the terminal, loaded through the cache as an image view would.",
        discussion: """
            SOURCE is an http(s) URL, a file:// URL or a file path; several are shown as a grid. Animated GIF and \
            WebP play (Ctrl-C stops them). The output mode follows the terminal (kitty graphics, sixel, else \
            Unicode symbols) unless a flag forces one. Standard output must be a terminal, unless -o FILE writes a \
            PNG instead.
            """)

    @Argument(help: "URLs or file paths.")
    var sources: [String]

    @Option(
        help: ArgumentHelp(
            "The cells to draw in (default: the terminal's size less one row, else 80x24).", valueName: "COLSxROWS"))
    var size: String?

    @Option(help: ArgumentHelp("An image to show while each source loads.", valueName: "FILE"))
    var placeholder: String?

    @Option(help: ArgumentHelp("Fade from the placeholder to the image over SECONDS.", valueName: "SECONDS"))
    var fade: Double = 0

    @Flag(help: "Fade even when the image comes from a cache.")
    var forceTransition = false

    @Flag(help: "Show blurred previews of a progressive JPEG while it downloads.")
    var progressive = false

    @Flag(exclusivity: .exclusive)
    var mode: ViewMode?

    @Option(
        help: ArgumentHelp("Play animated images N times (0: forever; default: the image's own count).", valueName: "N")
    )
    var loops: Int?

    @Option(
        name: .customShort("o"),
        help: ArgumentHelp(
            "Write a PNG to FILE (- for standard output) instead of drawing (no terminal needed): the image, or a "
                + "sheet of several, a failed source's error in its cell.",
            valueName: "FILE"))
    var outputFile: String?

    @OptionGroup(title: "Cache")
    var cacheOptions: CacheOptions

    @OptionGroup(title: "Logging")
    var logging: LoggingOptions

    func validate() throws {
        if sources.isEmpty { throw ValidationError("Give at least one SOURCE.") }
        if let size, TerminalGridSize(parsing: size) == nil {
            throw ValidationError("--size must be COLSxROWS with positive numbers, e.g. 80x24.")
        }
        if !(fade >= 0 && fade <= 10) { throw ValidationError("--fade must be between 0 and 10 seconds.") }
        if let loops, loops < 0 { throw ValidationError("--loops must be 0 (forever) or more.") }
    }

    func run() async throws {
        let logger = logging.bootstrap()
        if let outputFile {
            let session = CommandSession(
                cache: try cacheOptions.makeCache(), concurrency: 4, logger: logger,
                httpCachePolicy: cacheOptions.httpCachePolicy)
            let output = try OutputFile(outputFile)
            let failures = try await ViewSnapshot(manager: session.manager).write(sources, to: output)
            await session.shutdown()
            if failures > 0 { throw ExitCode.failure }
            return
        }
        guard isatty(STDOUT_FILENO) == 1 else {
            Console.error(
                "error: kf view draws on a terminal, but standard output is not one; run it in a terminal, or "
                    + "give -o FILE to write a PNG")
            throw ExitCode.failure
        }
        let placeholderImage = try PlaceholderFile.load(placeholder)
        let session = CommandSession(
            cache: try cacheOptions.makeCache(), concurrency: 4, logger: logger,
            httpCachePolicy: cacheOptions.httpCachePolicy)
        let screen = TerminalScreen()
        let area = drawingArea
        screen.reserve(rows: area.rows)
        let interrupt = ViewInterrupt.install(screen: screen)
        let renderer = TerminalRenderer(mode: mode?.outputMode)
        let regions = TerminalRegion.grid(of: sources.count, in: area)
        let options = ViewRunner.Options(
            placeholder: placeholderImage, transition: fade > 0 ? .fade(fade) : .none,
            forceTransition: forceTransition, progressive: progressive)
        let views = regions.map {
            TerminalImageView(screen: screen, region: $0, renderer: renderer, loopCount: loops)
        }
        let failures = await ViewRunner(manager: session.manager, options: options).show(sources, in: views)
        screen.finish()
        interrupt.cancel()
        await session.shutdown()
        if failures > 0 { throw ExitCode.failure }
    }

    /// `--size` (no larger than the terminal), else the terminal's size less a row for the prompt, else 80x24.
    private var drawingArea: TerminalGridSize {
        let terminal = TerminalGridSize.current(of: STDOUT_FILENO)
        if let size, let parsed = TerminalGridSize(parsing: size) {
            guard let terminal else { return parsed }
            return TerminalGridSize(
                columns: min(parsed.columns, terminal.columns), rows: min(parsed.rows, terminal.rows))
        }
        guard let terminal else { return .fallback }
        return TerminalGridSize(columns: terminal.columns, rows: max(1, terminal.rows - 1))
    }
}
