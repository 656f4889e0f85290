import Foundation
import Kingfisher
import Logging

/// The manager a command works through: its own downloader (so concurrency applies) and cache.
struct Pipeline {
    let manager: KingfisherManager
    let cache: ImageCache
    let downloader: ImageDownloader

    /// - Parameter logger: where the manager, the downloader and the cache log (`--log-level`); `nil` logs nothing.
    init(cache: ImageCache, concurrency: Int, logger: Logger? = nil) {
        let configuration = ImageDownloader.Configuration(maxConcurrentDownloads: concurrency)
        downloader = ImageDownloader(name: "kf", configuration: configuration)
        self.cache = cache
        manager = KingfisherManager(downloader: downloader, cache: cache)
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
