import Foundation
import Kingfisher
import KingfisherLocking

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Remembers why downloads failed, per URL, so a prefetch (whose blocks list failed sources without reasons)
/// can print one.
final class DownloadErrorLog: ImageDownloaderDelegate {
    private let errors = Locked<[URL: any Error]>([:])

    func imageDownloader(
        _ downloader: ImageDownloader, didFinishDownloadingImageForURL url: URL, with response: URLResponse?,
        error: (any Error)?
    ) {
        guard let error else { return }
        errors.withLock { $0[url] = error }
    }

    /// Why `url`'s download failed, if it did.
    func error(for url: URL) -> (any Error)? {
        errors.withLock { $0[url] }
    }
}
