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

    @Option(help: "The format the cache entry was stored in (as given to fetch or prefetch).")
    var format: OutputFormat = .original

    @Option(help: "The quality it was stored at, for JPEG, WebP and AVIF.")
    var quality = 85

    func run() async throws {
        let cache = try cacheOptions.makeCache()
        let session = CommandSession(cache: cache, concurrency: 4, logger: logging.bootstrap())
        let processor = processing.processor()
        var failed = false
        for text in sources {
            do {
                let argument = try SourceArgument(text)
                let info = try await describe(argument, session: session, processor: processor)
                Console.out(json ? info.jsonLine : info.text)
            } catch {
                failed = true
                Console.error("error: \(text): \(FailureMessage.reason(error, source: text))")
            }
        }
        await session.shutdown()
        if failed { throw ExitCode.failure }
    }

    private func describe(_ argument: SourceArgument, session: CommandSession, processor: any ImageProcessor)
        async throws
        -> SourceInfo
    {
        let key = argument.source.cacheKey
        // Read as the cache reads: a damaged file is removed and the source downloaded instead.
        let cachedOriginal = try? session.cache.diskStorage.value(forKey: key, extendingExpiration: .none)
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
        let fileExtension = format.cacheFileExtension(quality: quality)
        let cacheType = session.cache.imageCachedType(
            forKey: key, processorIdentifier: identifier, forcedExtension: fileExtension)
        return SourceInfo(
            source: argument.text, format: data.kf.imageFormat, width: image.pixelWidth, height: image.pixelHeight,
            frames: image.kf.imageFrameCount ?? 1, duration: image.kf.frameDurations.reduce(0, +),
            loopCount: image.kf.loopCount,
            hasAlpha: image.hasAlpha, bytes: data.count, cacheType: FetchRunner.name(of: cacheType),
            cacheFile: session.cache.cacheFileURLIfOnDisk(
                forKey: key, processorIdentifier: identifier, forcedExtension: fileExtension)?.path,
            cacheKey: ImageCache.computedKey(forKey: key, processorIdentifier: identifier))
    }
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
    let cacheKey: String

    init(
        source: String, format: ImageFormat, width: Int, height: Int, frames: Int, duration: Double, loopCount: Int,
        hasAlpha: Bool, bytes: Int, cacheType: String, cacheFile: String?, cacheKey: String
    ) {
        self.source = source
        self.format = "\(format)"
        self.width = width
        self.height = height
        self.frames = frames
        self.duration = duration
        self.loopCount = loopCount
        self.hasAlpha = hasAlpha
        self.bytes = bytes
        self.cacheType = cacheType
        self.cacheFile = cacheFile
        self.cacheKey = cacheKey
    }

    var jsonLine: String { Console.jsonLine(self) }

    var text: String {
        var animation = ""
        if frames > 1 {
            let loops = loopCount == 0 ? "forever" : "\(loopCount) times"
            animation = " (\(ProgressReporter.format(duration, digits: 2)) s, loops \(loops))"
        }
        let cache = cacheFile.map { "\(cacheType), \($0)" } ?? cacheType
        return """
            \(source)
              format:  \(format)
              size:    \(width)x\(height) pixels\(hasAlpha ? ", with alpha" : "")
              frames:  \(frames)\(animation)
              bytes:   \(bytes)
              cache:   \(cache)
              key:     \(cacheKey)
            """
    }
}
