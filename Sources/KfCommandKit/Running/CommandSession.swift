import Foundation
package import Kingfisher
package import Logging

/// What one command retrieves through: a manager with its own downloader (so concurrency applies) and cache.
package struct CommandSession {
    package let manager: KingfisherManager
    package let cache: ImageCache
    package let downloader: ImageDownloader

    /// - Parameters:
    ///   - logger: where the manager, the downloader and the cache log (`--log-level`); `nil` logs nothing.
    ///   - httpCachePolicy: whether retrievals follow the servers' caching headers (they do unless
    ///     `--ignore-cache-headers`).
    package init(
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
    package func shutdown() async {
        try? await downloader.shutdown()
    }
}
