import ArgumentParser
import Foundation
import KfCommandKit
import Kingfisher

/// `kf cache`: look at and tidy the disk cache.
struct CacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Show, clean or clear the disk cache.",
        subcommands: [Info.self, Clean.self, Clear.self])

    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Size, file count and expired count of the cache.")

        @OptionGroup var cacheOptions: CacheOptions

        @Flag(help: "Print a JSON object.")
        var json = false

        func run() throws {
            let cache = try cacheOptions.makeCache()
            let summary = try CacheCommand.summary(of: cache)
            let records = cache.httpRecordSummary()
            let directory = cache.diskStorage.directoryURL.path
            if json {
                Console.out(
                    Console.jsonLine(
                        CacheReport(
                            directory: directory, files: summary.fileCount, bytes: summary.totalSize,
                            expiredFiles: summary.expiredCount, expiredBytes: summary.expiredSize,
                            temporaryFiles: summary.temporaryCount, temporaryBytes: summary.temporarySize,
                            freshSources: records.fresh, staleSources: records.stale,
                            sourcesWithoutValidators: records.withoutValidators,
                            interruptedDownloads: records.interruptedDownloads,
                            interruptedDownloadBytes: records.interruptedDownloadBytes)))
            } else {
                Console.out("directory: \(directory)")
                Console.out("files:     \(summary.fileCount) (\(CacheCommand.bytes(summary.totalSize)))")
                Console.out("expired:   \(summary.expiredCount) (\(CacheCommand.bytes(summary.expiredSize)))")
                Console.out(
                    "temporary: \(summary.temporaryCount) (\(CacheCommand.bytes(summary.temporarySize))), "
                        + "writes in progress or left by a killed process")
                Console.out(
                    "sources:   \(records.fresh) fresh, \(records.stale) stale (revalidated when next asked for), "
                        + "\(records.withoutValidators) stale without validators (downloaded again)")
                if records.interruptedDownloads > 0 {
                    Console.out(
                        "resumable: \(records.interruptedDownloads) cut-off downloads "
                            + "(\(CacheCommand.bytes(UInt(records.interruptedDownloadBytes))) kept, resumed when next asked for)"
                    )
                }
            }
        }
    }

    struct Clean: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove expired files, then the least recently used ones while over --size-limit.")

        @OptionGroup var cacheOptions: CacheOptions

        @Option(
            help: ArgumentHelp(
                "Keep the cache under this many megabytes, a whole number of 1 or more (down to half of it).",
                valueName: "MB"))
        var sizeLimit: String?

        func validate() throws {
            guard let sizeLimit else { return }
            guard let megabytes = UInt(sizeLimit) else {
                throw ValidationError(
                    "--size-limit takes whole megabytes (1, 2, 500...), not \"\(sizeLimit)\"")
            }
            if megabytes == 0 {
                throw ValidationError(
                    "--size-limit 0 would mean no limit (Kingfisher's sizeLimit 0), so nothing would be removed; "
                        + "to remove every file, use `kf cache clear`")
            }
        }

        func run() throws {
            let cache = try cacheOptions.makeCache()
            if let megabytes = sizeLimit.flatMap(UInt.init) {
                cache.diskStorage.config.sizeLimit = megabytes * 1024 * 1024
            }
            do {
                let expired = try cache.diskStorage.removeExpiredValues()
                let oversize = try cache.diskStorage.removeSizeExceededValues()
                let summary = try cache.diskStorage.summary()
                let limit = cache.diskStorage.config.sizeLimit
                let limitNote =
                    limit == 0
                    ? " (no size limit set: only expired files go; --size-limit MB sets one)"
                    : " (size limit \(CacheCommand.bytes(limit)))"
                Console.out(
                    "removed \(expired.count) expired and \(oversize.count) over-limit files; "
                        + "\(summary.fileCount) files (\(CacheCommand.bytes(summary.totalSize))) remain\(limitNote)")
            } catch {
                throw CommandFailure(error.errorDescription ?? "\(error)")
            }
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove every cached file.")

        @OptionGroup var cacheOptions: CacheOptions

        func run() throws {
            let cache = try cacheOptions.makeCache()
            let summary = try CacheCommand.summary(of: cache)
            do { try cache.diskStorage.removeAll() } catch {
                throw CommandFailure(error.errorDescription ?? "\(error)")
            }
            Console.out("removed \(summary.fileCount) files (\(CacheCommand.bytes(summary.totalSize)))")
        }
    }

    static func summary(of cache: ImageCache) throws(CommandFailure) -> DiskStorage.Summary {
        do { return try cache.diskStorage.summary() } catch {
            throw CommandFailure(error.errorDescription ?? "\(error)")
        }
    }

    static func bytes(_ count: UInt) -> String {
        let units = ["bytes", "KB", "MB", "GB", "TB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) bytes" : "\(ProgressReporter.format(value, digits: 1)) \(units[unit])"
    }
}

/// What `kf cache info --json` prints.
private struct CacheReport: Encodable {
    let directory: String
    let files: Int
    let bytes: UInt
    let expiredFiles: Int
    let expiredBytes: UInt
    let temporaryFiles: Int
    let temporaryBytes: UInt
    /// HTTP cache records (one per network source stored while following the servers' caching headers).
    let freshSources: Int
    let staleSources: Int
    let sourcesWithoutValidators: Int
    /// Downloads cut off mid-transfer, kept to be resumed.
    let interruptedDownloads: Int
    let interruptedDownloadBytes: Int64
}
