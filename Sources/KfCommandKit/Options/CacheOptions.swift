package import ArgumentParser
package import Foundation
package import Kingfisher

/// Where the disk cache lives.
package struct CacheOptions: ParsableArguments {
    package init() {}

    @Option(
        help: ArgumentHelp(
            "The disk cache directory (default: $XDG_CACHE_HOME/kf/images, else ~/.cache/kf/images; kf serve's "
                + "is .../kf/serve).", valueName: "DIR"))
    package var cacheDir: String?

    @Flag(
        help: ArgumentHelp(
            "Keep cached images for the cache's expiration whatever the server said, as Kingfisher does "
                + "(default: follow Cache-Control, ETag and Last-Modified: fresh images without a request, stale "
                + "ones revalidated)."))
    package var ignoreCacheHeaders = false

    /// Whether retrievals follow the servers' caching headers (on unless `--ignore-cache-headers`).
    package var httpCachePolicy: HTTPCachePolicy {
        ignoreCacheHeaders ? .ignoresResponseHeaders : .followsResponseHeaders
    }

    /// The directory the cache files are in.
    package var directory: URL {
        if let cacheDir { return URL(fileURLWithPath: (cacheDir as NSString).expandingTildeInPath) }
        return Self.defaultDirectory
    }

    /// `$XDG_CACHE_HOME/kf`, or `~/.cache/kf` when it is unset or not absolute (the XDG rule): kf's home, holding
    /// one folder per default cache, so each cache's folder holds only its own files.
    package static var home: URL {
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("kf")
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".cache/kf")
    }

    /// The cache of `kf fetch`, `prefetch`, `info`, `view`, `gallery` and `cache`: `home/images`.
    package static var defaultDirectory: URL { home.appendingPathComponent("images") }

    /// The cache of `kf serve`: `home/serve`.
    package static var defaultServeDirectory: URL { home.appendingPathComponent("serve") }

    /// The memory cache's cost limit: small, a command sees each image once.
    package static let memoryCostLimit = 64 << 20

    /// The cache on ``directory`` (files straight in it, no Kingfisher sub-folder), with a small memory part.
    package func makeCache() throws(CommandFailure) -> ImageCache {
        if cacheDir == nil { LegacyCacheHome.moveFiles(from: Self.home, into: Self.defaultDirectory) }
        return try Self.makeCache(at: directory)
    }

    /// The cache on `directory`, as ``makeCache()`` makes it.
    package static func makeCache(at directory: URL) throws(CommandFailure) -> ImageCache {
        try checkLooksLikeCache(directory)
        let cache: ImageCache
        do {
            cache = try ImageCache(name: "kf", cacheDirectoryURL: directory) { base, _ in base }
        } catch {
            throw CommandFailure("cannot use the cache directory \(directory.path): \(error.errorDescription ?? "")")
        }
        cache.memoryStorage.config.totalCostLimit = memoryCostLimit
        return cache
    }
}

extension CacheOptions {
    /// A cache for `--no-cache` runs: memory only (the runs pass `cacheMemoryOnly`). Its disk storage names a
    /// directory it never creates, so an interrupted run leaves nothing behind.
    package static func throwaway() -> ImageCache {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kf-nocache-\(getpid())")
        var config = DiskStorage.Config(name: "kf", sizeLimit: 0, directory: directory)
        config.cachePathBlock = { base, _ in base }
        config.sweepInterval = 0
        let disk = DiskStorage.Backend<Data>(noThrowConfig: config, creatingDirectory: false)
        let memory = MemoryStorage.Backend<KFCrossPlatformImage>(config: .init(totalCostLimit: memoryCostLimit))
        return ImageCache(memoryStorage: memory, diskStorage: disk)
    }
}

extension CacheOptions {
    /// Refuses a directory holding anything but cache files (SHA-256 names, optionally with an extension, and
    /// writes in progress): the cache removes expired files and `kf cache clear` removes everything, so pointing
    /// `--cache-dir` at, say, the home directory must fail instead.
    package static func checkLooksLikeCache(_ directory: URL) throws(CommandFailure) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where !isCacheFileName(name) || !isRegularFile(directory.appendingPathComponent(name)) {
            if name == partialDownloadsName, holdsOnlyPartialDownloads(directory.appendingPathComponent(name)) {
                continue
            }
            throw CommandFailure(
                "\(directory.path) holds \"\(name)\", which is not a kf cache file; use an empty directory or one "
                    + "only kf uses for --cache-dir")
        }
    }

    /// The directory in which the library keeps downloads that were cut off, to resume them.
    package static let partialDownloadsName = ".kf-partial"

    /// Whether `url` is a directory itself (not a link) holding only kept downloads (`<SHA-256>.part`) and the
    /// temporary files of their writes (dot names).
    private static func holdsOnlyPartialDownloads(_ url: URL) -> Bool {
        guard fileType(url) == S_IFDIR, let names = try? FileManager.default.contentsOfDirectory(atPath: url.path)
        else { return false }
        return names.allSatisfy { name in
            name.hasPrefix(".") || name.hasSuffix(".part") && isCacheFileName(String(name.dropLast(5)))
        }
    }

    /// Whether `url` is a regular file itself (not a directory, nor a link to anything).
    private static func isRegularFile(_ url: URL) -> Bool {
        fileType(url) == S_IFREG
    }

    /// The type bits of `url` itself (`lstat`: a link is a link), or `nil` when it cannot be inspected. One
    /// system call: `FileManager.attributesOfItem` also looks up owner and group names, which cost a tenth of
    /// a revalidation run over a 240-file cache (`perf record`).
    private static func fileType(_ url: URL) -> mode_t? {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { return nil }
        return info.st_mode & S_IFMT
    }

    package static func isCacheFileName(_ name: String) -> Bool {
        if name.hasPrefix(".kf-tmp-") { return true }
        let stem = name.split(separator: ".", maxSplits: 1).first ?? ""
        return stem.count == 64 && stem.allSatisfy { $0.isHexDigit && !$0.isUppercase }
    }
}
