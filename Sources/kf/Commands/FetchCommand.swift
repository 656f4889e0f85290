import ArgumentParser
import Foundation
import KfCommandKit
import Kingfisher

/// `kf fetch`: sources through the whole pipeline (cache, download, processing) into files.
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Fetch images through the cache, process them and write the results.",
        discussion: """
            SOURCE is an http(s) URL, a file:// URL or a file path. Processing flags apply in the order given, e.g.
            `kf fetch photo.jpg --downsample 512x512 --round 24 --border 4:#336699 -o avatar.png`.
            """)

    @Argument(help: "URLs or file paths.")
    var sources: [String]

    @Option(name: .customLong("output"), help: ArgumentHelp("Write one file per source into DIR.", valueName: "DIR"))
    var outputDirectory: String?

    @Option(
        name: .customShort("o"),
        help: ArgumentHelp(
            "Write the single source's result to FILE (- for standard output; a link writes its target, a device "
                + "or FIFO is written in place).", valueName: "FILE"))
    var outputFile: String?

    @Option(help: "Sources fetched at the same time.")
    var concurrency = 8

    @OptionGroup(title: "Cache")
    var cacheOptions: CacheOptions

    @OptionGroup(title: "Logging")
    var logging: LoggingOptions

    @Flag(help: "Neither read nor write the disk cache.")
    var noCache = false

    @Flag(help: "Download and process again even when cached (the new result replaces the cached one).")
    var forceRefresh = false

    @Option(help: "Output format; original keeps the source's format (its exact bytes when nothing processes it).")
    var format: OutputFormat?

    @Option(help: "Quality for JPEG, WebP and AVIF, 1...100.")
    var quality = 85

    @Flag(
        help: """
            Fetch only: write (and cache) the downloaded bytes without decoding them; their header must be an \
            image's. No processing flags.
            """)
    var original = false

    @Flag(help: "Print one JSON object per source instead of text lines.")
    var json = false

    @OptionGroup(title: "Processing (applied in the order given)")
    var processing: ProcessingFlags

    func validate() throws {
        if sources.isEmpty { throw ValidationError("Give at least one SOURCE.") }
        if outputDirectory != nil && outputFile != nil {
            throw ValidationError("Use --output DIR or -o FILE, not both.")
        }
        if !(1...100).contains(quality) { throw ValidationError("--quality must be between 1 and 100.") }
        if concurrency < 1 { throw ValidationError("--concurrency must be at least 1.") }
        if original && !processing.processor().identifier.isEmpty {
            throw ValidationError("--original writes the bytes as downloaded; leave out the processing flags.")
        }
        if original && (format ?? .original) != .original {
            throw ValidationError("--original keeps the source's format; leave out --format.")
        }
        _ = try formatChoice
    }

    func run() async throws {
        // Checked here, not in `validate()`: ArgumentParser validates before it reports an unknown option, whose
        // value (`--size 300x200`) then reads as a second SOURCE; by `run()` every option is known.
        if outputFile != nil && sources.count > 1 {
            throw ValidationError("-o FILE takes one SOURCE; use --output DIR for several.")
        }
        var arguments: [SourceArgument] = []
        var badSources: [String] = []
        for text in sources {
            do { arguments.append(try SourceArgument(text)) } catch { badSources.append(error.description) }
        }
        let destination = try makeDestination()
        let cache = noCache ? CacheOptions.throwaway() : try cacheOptions.makeCache()
        let session = CommandSession(
            cache: cache, concurrency: concurrency, logger: logging.bootstrap(),
            httpCachePolicy: cacheOptions.httpCachePolicy)
        let reporter = ProgressReporter(total: sources.count, verb: "fetching")
        for line in badSources { reporter.record(.failed, stderr: "error: \(line)") }
        let ticker = reporter.startTicking()
        let interrupts = reporter.endingOnInterrupt()
        defer { interrupts.cancel() }
        let processor: any ImageProcessor = original ? UndecodedBytes.Processor() : processing.processor()
        let choice = try formatChoice
        let serializer: any CacheSerializer =
            original
            ? UndecodedBytes.Serializer()
            : choice.format.serializer(quality: quality, keepsOriginalBytes: processor.identifier.isEmpty)
        let writeFailures = CacheWriteFailures(directory: cache.diskStorage.directoryURL)
        var outputRule = choice.rule
        // Undecoded bytes are never converted: they are written as downloaded, or not at all.
        if original, case .convert(let format) = outputRule { outputRule = .require(format) }
        let runner = FetchRunner(
            session: session, processor: processor, serializer: serializer,
            format: original ? nil : choice.format.imageFormat,
            cacheFileExtension: original ? nil : choice.format.cacheFileExtension(quality: quality),
            outputRule: outputRule, quality: quality,
            knowsPixelSize: !original,
            usesCache: !noCache, forceRefresh: forceRefresh, destination: destination, concurrency: concurrency,
            json: json, writeFailures: writeFailures)
        _ = await runner.run(arguments, reporter: reporter)
        ticker?.cancel()
        await session.shutdown()
        for line in writeFailures.summaryLines { reporter.note(line) }
        let counts = reporter.finish()
        if counts.failed > 0 { throw ExitCode.failure }
    }

    /// `--format` and the `-o` file's extension, read together.
    private var formatChoice: OutputFormatChoice {
        get throws(ValidationError) {
            try OutputFormatChoice(
                format: format, outputFile: outputFile, processes: !processing.processor().identifier.isEmpty)
        }
    }

    private func makeDestination() throws -> FetchRunner.Destination {
        if let outputFile { return .file(try OutputFile(outputFile)) }
        guard let outputDirectory else { return .none }
        let url = URL(fileURLWithPath: (outputDirectory as NSString).expandingTildeInPath, isDirectory: true)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw ValidationError(
                "--output \(outputDirectory) is a file, not a directory: --output DIR writes one file per source "
                    + "into DIR; -o FILE writes a single source's result")
        }
        // A directory that can't be made is reported per source when its file can't be written.
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return .directory(url)
    }
}
