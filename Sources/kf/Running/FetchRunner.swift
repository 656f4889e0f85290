import Foundation
import KfCommandKit
import Kingfisher

/// Runs sources through the manager, a few at a time, and writes each result where the user asked.
struct FetchRunner {
    /// Where results go.
    enum Destination {
        /// Nowhere: the run only fills the cache and reports.
        case none
        /// One file per source in a directory, named after the source.
        case directory(URL)
        /// One file (or standard output), for a single source.
        case file(OutputFile)
    }

    let session: CommandSession
    let processor: any ImageProcessor
    let serializer: any CacheSerializer
    /// The format the results must have (`--format`); `nil` keeps the source's.
    let format: ImageFormat?
    /// The extension that gives this format's cache files their own entries (see `OutputFormat`).
    let cacheFileExtension: String?
    /// What `-o`'s extension asks of a result kept in the source's format.
    let outputRule: OutputFormatChoice.OutputRule
    /// The quality of a conversion `outputRule` asks for, 1...100.
    let quality: Int
    /// `false` when the images are not decoded (`--original`), so their pixel size is unknown.
    let knowsPixelSize: Bool
    let usesCache: Bool
    let forceRefresh: Bool
    let destination: Destination
    let concurrency: Int
    let json: Bool
    /// Where results the cache could not store are counted (their reason is printed once per run).
    let writeFailures: CacheWriteFailures

    /// Fetches every source; returns the records in the order the sources finished.
    func run(_ sources: [SourceArgument], reporter: ProgressReporter) async -> [FetchRecord] {
        let unique = Self.uniqued(sources)
        for duplicate in unique.duplicates {
            reporter.record(.skipped, stderr: "skipped: \(duplicate.text): given more than once")
        }
        let names = Self.outputNames(for: unique.sources)
        let options = retrievalOptions
        return await withTaskGroup(of: FetchRecord.self) { group in
            var records: [FetchRecord] = []
            var pending = unique.sources.makeIterator()
            func startNext() -> Bool {
                guard let next = pending.next() else { return false }
                let name = names[next] ?? next.baseName
                group.addTask { await fetch(next, outputName: name, options: options) }
                return true
            }
            for _ in 0..<max(1, concurrency) where !startNext() { break }
            while let record = await group.next() {
                records.append(record)
                let failed = record.error != nil
                let line = json ? record.jsonLine : record.textLine
                // JSON and results on stdout, failures in text on stderr; all on stderr when stdout is the image.
                let toStandardOutput = resultsOnStandardOutput && (json || !failed)
                // A result the cache could not store counts as failed; its reason is printed once at the end.
                reporter.record(
                    failed || record.cacheError != nil ? .failed : .completed,
                    stdout: toStandardOutput ? line : nil, stderr: toStandardOutput ? nil : line)
                _ = startNext()
            }
            return records
        }
    }

    private var retrievalOptions: KingfisherOptionsInfo {
        var options: KingfisherOptionsInfo = [.processor(processor), .cacheSerializer(serializer)]
        if let cacheFileExtension { options.append(.forcedCacheFileExtension(cacheFileExtension)) }
        if usesCache {
            // The result is read back from its cache file, so the image is encoded once.
            options.append(.waitForCache)
            if forceRefresh { options.append(.forceRefresh) }
        } else {
            options += [.forceRefresh, .cacheMemoryOnly]
        }
        return options
    }

    private func fetch(_ argument: SourceArgument, outputName: String, options: KingfisherOptionsInfo) async
        -> FetchRecord
    {
        let start = ContinuousClock.now
        var record = FetchRecord(source: argument.text, milliseconds: 0)
        if await mayServeFromDisk(argument.source), let cached = await cachedBytes(for: argument.source.cacheKey) {
            serve(cached, into: &record, outputName: outputName)
            if case .network = argument.source, session.manager.httpCachePolicy.followsHeaders {
                record.validation = HTTPValidation.fresh.name
            }
            record.milliseconds = Self.milliseconds(since: start)
            return record
        }
        do {
            let result = try await session.manager.retrieveImage(with: argument.source, options: options)
            if knowsPixelSize {
                record.width = result.image.pixelWidth
                record.height = result.image.pixelHeight
            }
            record.cacheType = Self.name(of: result.cacheType)
            record.validation = result.validation?.name
            if let storeError = result.diskStoreError {
                let computed = ImageCache.computedKey(
                    forKey: argument.source.cacheKey, processorIdentifier: processor.identifier)
                writeFailures.note(computedKey: computed, error: storeError)
                record.cacheError = CacheWriteFailures.cause(of: storeError)
            }
            guard let encoded = encoded(result, key: argument.source.cacheKey) else {
                throw CommandFailure("the image could not be encoded")
            }
            record.bytes = encoded.count
            let imageFormat = encoded.head.kf.imageFormat
            record.format = "\(imageFormat)".lowercased()
            if let output = try outputFile(named: outputName, format: imageFormat) {
                let bytes: Data
                do { bytes = try encoded.full ?? Data(contentsOf: encoded.file!) } catch {
                    throw CommandFailure("cannot read the cached result: \(FailureMessage.plain(error))")
                }
                let written = try applyingOutputRule(to: bytes, format: imageFormat, image: result.image)
                try output.write(written.data)
                record.output = output.shownPath
                record.bytes = written.data.count
                record.format = "\(written.format)".lowercased()
            }
        } catch {
            record.error = FailureMessage.reason(error, source: argument.text)
        }
        record.milliseconds = Self.milliseconds(since: start)
        return record
    }

    /// Whether a disk hit may be served without the manager: always when the run ignores caching headers or the
    /// source is not a network image; otherwise only when its HTTP cache record says fresh (the manager
    /// revalidates the rest).
    private func mayServeFromDisk(_ source: Source) async -> Bool {
        guard case .network = source, session.manager.httpCachePolicy.followsHeaders else { return true }
        return await session.cache.isFreshByHTTP(
            forKey: source.cacheKey, processorIdentifier: processor.identifier,
            policy: session.manager.httpCachePolicy)
    }

    /// The cached file of a source cached under this run's processor and format, read as the disk cache reads (on its disk
    /// executor: an expired file is a miss; a read extends the expiration; a file that fails its integrity check is
    /// removed and is a miss). Only bytes of the asked format whose header can be read count: anything else goes through the
    /// manager, which fetches again what is missing and removes a cache file that doesn't decode.
    private func cachedBytes(for key: String) async -> (data: Data, size: (width: Int, height: Int))? {
        guard usesCache, !forceRefresh else { return nil }
        let computed = ImageCache.computedKey(forKey: key, processorIdentifier: processor.identifier)
        guard
            let data = await session.cache.diskData(forComputedKey: computed, forcedExtension: cacheFileExtension),
            format == nil || data.kf.imageFormat == format,
            let size = data.kf.headerPixelSize
        else { return nil }
        return (data, size)
    }

    /// A disk-cache hit served without decoding: the file's bytes are the serializer's output already.
    private func serve(
        _ cached: (data: Data, size: (width: Int, height: Int)), into record: inout FetchRecord, outputName: String
    ) {
        record.cacheType = Self.name(of: .disk)
        if knowsPixelSize {
            record.width = cached.size.width
            record.height = cached.size.height
        }
        record.bytes = cached.data.count
        let format = cached.data.kf.imageFormat
        record.format = "\(format)".lowercased()
        do {
            guard let output = try outputFile(named: outputName, format: format) else { return }
            let written = try applyingOutputRule(to: cached.data, format: format, image: nil)
            try output.write(written.data)
            record.output = output.shownPath
            record.bytes = written.data.count
            record.format = "\(written.format)".lowercased()
        } catch {
            record.error = error.description
        }
    }

    /// The bytes of the result in the output format: the cache file when there is one (written by the same
    /// serializer), otherwise encoded now (`result.data()` is the downloaded bytes, as in Kingfisher).
    ///
    /// A cache file is only opened for its first bytes (format) and size; the whole of it is read when an output
    /// is written.
    private func encoded(_ result: RetrieveImageResult, key: String) -> (
        head: Data, count: Int, full: Data?, file: URL?
    )? {
        if usesCache,
            let file = session.cache.cacheFileURLIfOnDisk(
                forKey: key, processorIdentifier: processor.identifier, forcedExtension: cacheFileExtension),
            let (head, size) = Self.head(of: file), size > 0, !head.isEmpty,
            format == nil || head.kf.imageFormat == format
        {
            return (head, size, nil, file)
        }
        guard let data = serializer.data(with: result.image, original: result.data()) else { return nil }
        return (data.prefix(64), data.count, data, nil)
    }

    /// The first 64 bytes of `file` and its size, `nil` when it cannot be read: an `open`, an `fstat` and a `read`.
    private static func head(of file: URL) -> (Data, Int)? {
        let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = read(descriptor, &bytes, bytes.count)
        return (Data(bytes.prefix(max(0, count))), Int(info.st_size))
    }

    /// The bytes `-o` gets for a result in `format`: as they are, or converted (from `image`, else decoded from
    /// `data`) when `-o`'s extension names another format and nothing asked to keep the source's.
    private func applyingOutputRule(to data: Data, format: ImageFormat, image: KFCrossPlatformImage?)
        throws(CommandFailure) -> (data: Data, format: ImageFormat)
    {
        switch outputRule {
        case .asIs:
            return (data, format)
        case .require(let wanted):
            guard let wantedFormat = wanted.imageFormat, wantedFormat != format else { return (data, format) }
            throw CommandFailure(
                "the source is a \(format) image, kept as it is (--format original or --original), but -o names "
                    + "\(wanted.rawValue); leave those out to convert it, or name the file for \(format)")
        case .convert(let wanted):
            guard let wantedFormat = wanted.imageFormat, wantedFormat != format else { return (data, format) }
            let decoded: KFCrossPlatformImage
            if let image {
                decoded = image
            } else {
                do { decoded = try KFCrossPlatformImage(decoding: data) } catch {
                    throw CommandFailure(FailureMessage.reason(error, source: ""))
                }
            }
            guard let converted = decoded.kf.data(format: wantedFormat, compressionQuality: CGFloat(quality) / 100)
            else {
                throw CommandFailure("the image could not be written as \(wanted.rawValue)")
            }
            return (converted, wantedFormat)
        }
    }

    private func outputFile(named name: String, format: ImageFormat) throws(CommandFailure) -> OutputFile? {
        switch destination {
        case .none: return nil
        case .file(let file): return file
        case .directory(let directory):
            let url = directory.appendingPathComponent(name).appendingPathExtension(format.fileExtension ?? "img")
            return try OutputFile(url.path)
        }
    }

    /// Whether result lines go to standard output: not when the image itself does (`-o -`).
    private var resultsOnStandardOutput: Bool {
        if case .file(let file) = destination, file.isStandardOutput { return false }
        return true
    }

    /// The sources in order without repeats, and the repeats.
    static func uniqued(_ sources: [SourceArgument]) -> (sources: [SourceArgument], duplicates: [SourceArgument]) {
        var seen: Set<SourceArgument> = []
        var unique: [SourceArgument] = []
        var duplicates: [SourceArgument] = []
        for source in sources {
            if seen.insert(source).inserted { unique.append(source) } else { duplicates.append(source) }
        }
        return (unique, duplicates)
    }

    /// A distinct output name per source: its base name, then `name-2`, `name-3`... for later sources that share it.
    static func outputNames(for sources: [SourceArgument]) -> [SourceArgument: String] {
        var names: [SourceArgument: String] = [:]
        var used: Set<String> = []
        for source in sources {
            let base = source.baseName
            var name = base
            var counter = 2
            while !used.insert(name).inserted {
                name = "\(base)-\(counter)"
                counter += 1
            }
            names[source] = name
        }
        return names
    }

    static func name(of cacheType: CacheType) -> String {
        switch cacheType {
        case .none: "none"
        case .memory: "memory"
        case .disk: "disk"
        }
    }

    static func milliseconds(since start: ContinuousClock.Instant) -> Double {
        (ContinuousClock.now - start).seconds * 1000
    }
}
