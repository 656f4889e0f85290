import Foundation
import Kingfisher
import Logging

/// What one command retrieves through: a manager with its own downloader (so concurrency applies) and cache.
struct CommandSession {
    let manager: KingfisherManager
    let cache: ImageCache
    let downloader: ImageDownloader

    /// - Parameters:
    ///   - logger: where the manager, the downloader and the cache log (`--log-level`); `nil` logs nothing.
    ///   - httpCachePolicy: whether retrievals follow the servers' caching headers (they do unless
    ///     `--ignore-cache-headers`).
    init(
        cache: ImageCache, concurrency: Int, logger: Logger? = nil,
        httpCachePolicy: HTTPCachePolicy = .followsResponseHeaders
    ) {
        let configuration = ImageDownloader.Configuration(maxConcurrentDownloads: concurrency)
        downloader = ImageDownloader(name: "kf", configuration: configuration)
        self.cache = cache
        manager = KingfisherManager(downloader: downloader, cache: cache)
        manager.httpCachePolicy = httpCachePolicy
        if let logger {
            manager.logger = logger
            downloader.logger = logger
            cache.logger = logger
        }
    }

    /// Shuts the downloader's HTTP client down; call once at the end.
    func shutdown() async {
        try? await downloader.shutdown()
    }
}
