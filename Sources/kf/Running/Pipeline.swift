import Foundation
import Kingfisher

/// The manager a command works through: its own downloader (so concurrency applies) and cache.
struct Pipeline {
    let manager: KingfisherManager
    let cache: ImageCache
    let downloader: ImageDownloader

    init(cache: ImageCache, concurrency: Int) {
        let configuration = ImageDownloader.Configuration(maxConcurrentDownloads: concurrency)
        downloader = ImageDownloader(name: "kf", configuration: configuration)
        self.cache = cache
        manager = KingfisherManager(downloader: downloader, cache: cache)
    }

    /// Shuts the downloader's HTTP client down; call once at the end.
    func shutdown() async {
        try? await downloader.shutdown()
    }
}
