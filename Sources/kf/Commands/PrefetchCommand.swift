import ArgumentParser
import Foundation
import KfCommandKit
import Kingfisher
import KingfisherLocking
import Logging

/// `kf prefetch`: warms the disk cache for a list of sources with `ImagePrefetcher`.
struct PrefetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefetch",
        abstract: "Warm the cache for the sources listed in a file.",
        discussion: """
            The file has one http(s) URL, file:// URL or absolute path per line; blank lines and lines starting \
            with # are ignored. Sources already cached (under the same processing) are skipped without decoding. \
            A later `kf fetch` with the same processing flags and format is served from the cache.
            """)

    @Option(help: ArgumentHelp("The file listing the sources (- for standard input).", valueName: "FILE"))
    var urlFile: String

    @Option(help: "Sources loaded at the same time.")
    var concurrency = 8

    @OptionGroup(title: "Cache")
    var cacheOptions: CacheOptions

    @OptionGroup(title: "Logging")
    var logging: LoggingOptions

    @Option(help: "The format the cache stores; original keeps each source's format.")
    var format: OutputFormat = .original

    @Option(help: "Quality for JPEG, WebP and AVIF, 1...100.")
    var quality = 85

    @Flag(
        help: """
            Cache the downloaded bytes as they are, without decoding them: only their header is checked (an image \
            format, within the pixel limit). No processing flags.
            """)
    var original = false

    @OptionGroup(title: "Processing (applied in the order given)")
    var processing: ProcessingFlags

    func validate() throws {
        if !(1...100).contains(quality) { throw ValidationError("--quality must be between 1 and 100.") }
        if concurrency < 1 { throw ValidationError("--concurrency must be at least 1.") }
        if original && !processing.processor().identifier.isEmpty {
            throw ValidationError("--original caches unprocessed bytes; leave out the processing flags.")
        }
        if original && format != .original { throw ValidationError("--original keeps the source's format.") }
    }

    func run() async throws {
        let file = try URLFile(path: urlFile)
        let cache = try cacheOptions.makeCache()
        let logger = logging.bootstrap()
        let session = CommandSession(
            cache: cache, concurrency: concurrency, logger: logger, httpCachePolicy: cacheOptions.httpCachePolicy)
        let errors = DownloadErrorLog()
        session.downloader.delegate = errors
        let writeFailures = CacheWriteFailures(directory: cache.diskStorage.directoryURL)
        let reasons = LoadFailureReasons()
        let handlers = [writeFailures.handler, reasons.handler] + (logger.map { [$0.handler] } ?? [])
        cache.logger = Logger(label: "kf.cache") { _ in MultiplexLogHandler(handlers) }
        let reporter = ProgressReporter(total: file.sources.count + file.badLines.count, verb: "prefetching")
        // Every bad line counts as failed; a few are named, the rest counted in one line.
        let shown = file.shownBadLines
        for (index, _) in file.badLines.enumerated() {
            reporter.record(.failed, stderr: index < shown.count ? "error: \(shown[index])" : nil)
        }
        let ticker = reporter.startTicking()
        let interrupts = reporter.endingOnInterrupt()
        defer { interrupts.cancel() }
        await prefetch(
            file.sources, session: session, reporter: reporter, errors: errors, reasons: reasons,
            writeFailures: writeFailures)
        ticker?.cancel()
        await session.shutdown()
        for line in writeFailures.summaryLines { reporter.note(line) }
        let counts = reporter.finish()
        if counts.failed > 0 { throw ExitCode.failure }
    }

    private var options: KingfisherOptionsInfo {
        let processor = original ? DefaultImageProcessor.default : processing.processor()
        let serializer = format.serializer(quality: quality, keepsOriginalBytes: processor.identifier.isEmpty)
        var options: KingfisherOptionsInfo = [.processor(processor), .cacheSerializer(serializer), .waitForCache]
        if let fileExtension = format.cacheFileExtension(quality: quality) {
            options.append(.forcedCacheFileExtension(fileExtension))
        }
        return options
    }

    /// Runs the prefetcher and reports each source as its outcome arrives.
    private func prefetch(
        _ sources: [SourceArgument], session: CommandSession, reporter: ProgressReporter, errors: DownloadErrorLog,
        reasons: LoadFailureReasons, writeFailures: CacheWriteFailures
    ) async {
        let identifier = (original ? DefaultImageProcessor.default : processing.processor()).identifier
        let texts = Dictionary(sources.map { ($0.source.cacheKey, $0.text) }, uniquingKeysWith: { first, _ in first })
        let seen = SeenCounts()
        let announce: @Sendable ([Source], [Source], [Source]) -> Void = { skipped, failed, completed in
            seen.report(skipped: skipped, failed: failed, completed: completed) { outcome, source in
                let text = texts[source.cacheKey] ?? source.cacheKey
                switch outcome {
                case .failed
                where writeFailures.contains(
                    computedKey: ImageCache.computedKey(forKey: source.cacheKey, processorIdentifier: identifier)):
                    reporter.record(.failed)  // its reason is printed once, with the others it failed
                case .failed:
                    let error: (any Error)? =
                        reasons.error(forKey: source.cacheKey) ?? source.url.flatMap(errors.error(for:))
                    let reason =
                        error.map { FailureMessage.reason($0, source: text) } ?? Self.fallbackReason(for: source)
                    reporter.record(.failed, stderr: "error: \(text): \(reason)")
                case .skipped: reporter.record(.skipped)
                case .completed: reporter.record(.completed)
                }
            }
        }
        await withSanitizedCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let prefetcher = ImagePrefetcher(
                sources: sources.map(\.source), options: options, progressBlock: announce,
                completionHandler: { skipped, failed, completed in
                    announce(skipped, failed, completed)
                    continuation.resume()
                }, manager: session.manager)
            prefetcher.maxConcurrentDownloads = concurrency
            prefetcher.start()
        }
    }

    private static func fallbackReason(for source: Source) -> String {
        if case .provider(let provider) = source, let url = provider.contentURL, url.isFileURL,
            !FileManager.default.isReadableFile(atPath: url.path)
        {
            return "no readable file at \(url.path)"
        }
        return "the data could not be decoded or processed as an image"
    }
}
