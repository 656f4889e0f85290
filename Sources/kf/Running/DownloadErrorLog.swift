import Foundation
import Kingfisher
import KingfisherLocking

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Remembers why downloads failed, per URL, so a prefetch (whose blocks list failed sources without reasons)
/// can print one.
final class DownloadErrorLog: ImageDownloaderDelegate {
    private let errors = Locked<[URL: String]>([:])

    func imageDownloader(
        _ downloader: ImageDownloader, didFinishDownloadingImageForURL url: URL, with response: URLResponse?,
        error: (any Error)?
    ) {
        guard let error else { return }
        let text = (error as? KingfisherError)?.errorDescription ?? "\(error)"
        errors.withLock { $0[url] = text }
    }

    /// Why `url`'s download failed, if it did.
    func reason(for url: URL) -> String? {
        errors.withLock { $0[url] }
    }
}
