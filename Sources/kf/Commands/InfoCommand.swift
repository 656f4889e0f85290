import ArgumentParser
import Foundation
import KfCommandKit
import Kingfisher

/// `kf info`: what a source is (format, pixel size, frames, bytes) and whether it is cached.
struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Describe images: format, pixel size, frames, bytes and cache state.",
        discussion: """
            The cache state is for the processing flags given (none: the unprocessed image), as `kf fetch` and \
            `kf prefetch` would store it. A URL is downloaded unless its original is in the disk cache.
            """)

    @Argument(help: "URLs or file paths.")
    var sources: [String]

    @OptionGroup(title: "Cache")
    var cacheOptions: CacheOptions

    @OptionGroup(title: "Logging")
    var logging: LoggingOptions

    @Flag(help: "Print one JSON object per source.")
    var json = false

    @OptionGroup(title: "Processing (only to look the cache up)")
    var processing: ProcessingFlags

    @Option(
        help: """
            The format the cache entry was stored in (as given to fetch or prefetch); without it, every format \
            cached for these processing flags is listed.
            """)
    var format: OutputFormat?

    @Option(help: "The quality it was stored at, for JPEG, WebP and AVIF.")
    var quality = 85

    func run() async throws {
        let cache = try cacheOptions.makeCache()
        let session = CommandSession(cache: cache, concurrency: 4, logger: logging.bootstrap())
        let processor = processing.processor()
        // The cache directory is listed once for every source's variants.
        let cacheFiles = Set(
            (try? FileManager.default.contentsOfDirectory(atPath: cache.diskStorage.directoryURL.path)) ?? [])
        var failed = false
        for text in sources {
            do {
                let argument = try SourceArgument(text)
                let info = try await describe(
                    argument, session: session, processor: processor, cacheFiles: cacheFiles)
                Console.out(json ? info.jsonLine : info.text)
            } catch {
                failed = true
                let reason = FailureMessage.reason(error, source: text)
                if json {
                    Console.out(Console.jsonLine(["source": text, "error": reason]))
                } else {
                    Console.error("error: \(text): \(reason)")
                }
            }
        }
        await session.shutdown()
        if failed { throw ExitCode.failure }
    }

    private func describe(
        _ argument: SourceArgument, session: CommandSession, processor: any ImageProcessor, cacheFiles: Set<String>
    ) async throws -> SourceInfo {
        let key = argument.source.cacheKey
        // Read as the cache reads: a damaged file is removed and the source downloaded instead.
        let cachedOriginal = await session.cache.diskData(forComputedKey: key, extendingExpiration: .none)
        let data: Data
        switch argument.source {
        case .network(let resource):
            if let cachedOriginal {
                data = cachedOriginal
            } else {
                data = try await session.downloader.downloadImage(with: resource.downloadURL).originalData
            }
        case .provider(let provider):
            do { data = try await provider.data() } catch {
                throw CommandFailure("cannot read: \(FailureMessage.plain(error))")
            }
        }
        let image = try KFCrossPlatformImage(decoding: data)
        let identifier = processor.identifier
        let variants = CachedVariant.all(
            forKey: key, processorIdentifier: identifier, in: session.cache, among: cacheFiles)
        var cacheType = CacheType.none
        var cacheFile: String?
        if let format {
            // The entry of the format asked for, as fetch and prefetch look it up.
            let fileExtension = format.cacheFileExtension(quality: quality)
            cacheType = session.cache.imageCachedType(
                forKey: key, processorIdentifier: identifier, forcedExtension: fileExtension)
            cacheFile =
                session.cache.cacheFileURLIfOnDisk(
                    forKey: key, processorIdentifier: identifier, forcedExtension: fileExtension)?.path
        } else if let first = variants.first {
            cacheType = .disk
            cacheFile = first.file
        }
        return SourceInfo(
            source: argument.text, format: data.kf.imageFormat, width: image.pixelWidth, height: image.pixelHeight,
            frames: image.kf.imageFrameCount ?? 1, duration: image.kf.frameDurations.reduce(0, +),
            loopCount: image.kf.loopCount,
            hasAlpha: image.hasAlpha, bytes: data.count, cacheType: FetchRunner.name(of: cacheType),
            cacheFile: cacheFile, variants: variants,
            cacheKey: ImageCache.computedKey(forKey: key, processorIdentifier: identifier))
    }
}

/// One cache file of a source under one processing: the format (and quality) it was stored in.
struct CachedVariant: Encodable, Equatable {
    /// `original` for the entry in the source's own format (no `--format`), else png, jpeg, gif, webp or avif.
    let format: String
    /// The quality of a lossy format's entry.
    let quality: Int?
    let file: String

    /// The cache files of `key` under `processorIdentifier`, found among `files` (the names in the cache's
    /// directory): the plain entry first, then the others by name.
    static func all(forKey key: String, processorIdentifier: String, in cache: ImageCache, among files: Set<String>)
        -> [CachedVariant]
    {
        let computed = ImageCache.computedKey(forKey: key, processorIdentifier: processorIdentifier)
        let plain = cache.diskStorage.cacheFileURL(forKey: computed)
        let directory = plain.deletingLastPathComponent()
        let base = plain.lastPathComponent
        return files.filter { $0 == base || $0.hasPrefix(base + ".") }.sorted().compactMap { name in
            let path = directory.appendingPathComponent(name).path
            guard name != base else { return CachedVariant(format: "original", quality: nil, file: path) }
            return CachedVariant(fileExtension: String(name.dropFirst(base.count + 1)), file: path)
        }
    }

    /// Reads an extension `OutputFormat.cacheFileExtension` made: `png`, `q80.jpg`.
    private init?(fileExtension: String, file: String) {
        let parts = fileExtension.split(separator: ".")
        guard let last = parts.last, let format = OutputFormat(pathExtension: String(last)) else { return nil }
        self.format = format.rawValue
        if parts.count == 2, parts[0].hasPrefix("q"), let quality = Int(parts[0].dropFirst()) {
            self.quality = quality
        } else {
            guard parts.count == 1 else { return nil }
            self.quality = nil
        }
        self.file = file
    }

    private init(format: String, quality: Int?, file: String) {
        self.format = format
        self.quality = quality
        self.file = file
    }

    /// `webp q80 (/path)`.
    var text: String { "\(format)\(quality.map { " q\($0)" } ?? "") (\(file))" }
}

/// What `kf info` reports about one source.
struct SourceInfo: Encodable {
    let source: String
    let format: String
    let width: Int
    let height: Int
    let frames: Int
    let duration: Double
    let loopCount: Int
    let hasAlpha: Bool
    let bytes: Int
    let cacheType: String
    let cacheFile: String?
    /// Every format cached for the processing flags given.
    let variants: [CachedVariant]
    /// The key the cache files are named after (JSON only: for scripts that look the files up).
    let cacheKey: String

    init(
        source: String, format: ImageFormat, width: Int, height: Int, frames: Int, duration: Double, loopCount: Int,
        hasAlpha: Bool, bytes: Int, cacheType: String, cacheFile: String?, variants: [CachedVariant],
        cacheKey: String
    ) {
        self.source = source
        self.format = "\(format)"
        self.width = width
        self.height = height
        self.frames = frames
        // Frame delays are whole milliseconds (GIF: hundredths); their sum in binary floating point is not.
        self.duration = (duration * 1000).rounded() / 1000
        self.loopCount = loopCount
        self.hasAlpha = hasAlpha
        self.bytes = bytes
        self.cacheType = cacheType
        self.cacheFile = cacheFile
        self.variants = variants
        self.cacheKey = cacheKey
    }

    var jsonLine: String { Console.jsonLine(self) }

    var text: String {
        var animation = ""
        if frames > 1 {
            let loops = loopCount == 0 ? "forever" : "\(loopCount) times"
            animation = " (\(ProgressReporter.format(duration, digits: 2)) s, loops \(loops))"
        }
        let cache: String
        if variants.isEmpty {
            let nothing = cacheType == "none" ? " (nothing cached for these processing flags)" : ""
            cache = (cacheFile.map { "\(cacheType), \($0)" } ?? cacheType) + nothing
        } else {
            // Every format stored for these flags, the one asked for (or the first) first.
            let ordered = variants.filter { $0.file == cacheFile } + variants.filter { $0.file != cacheFile }
            let state = cacheType == "none" ? "none in the format asked; cached as" : cacheType
            cache = "\(state), " + ordered.map(\.text).joined(separator: "\n           ")
        }
        return """
            \(source)
              format:  \(format)
              size:    \(width)x\(height) pixels\(hasAlpha ? ", with alpha" : "")
              frames:  \(frames)\(animation)
              bytes:   \(bytes)
              cache:   \(cache)
            """
    }
}
