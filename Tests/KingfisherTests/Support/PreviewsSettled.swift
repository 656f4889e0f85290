import Dispatch
import Foundation
import KingfisherLocking

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@testable import Kingfisher

/// The events that bound a download's progressive previews, for tests that assert none comes after some point
/// (the result, a cancel) without waiting "a while" for one to show itself.
///
/// A preview is decoded on a ``ImageWorkers``'s preview threads and handed over from there; the previewer submits
/// no decode once its download's body has ended (which the downloader's delegate hears of as the download's end).
/// So once the download has ended and every preview job queued before now has finished, no preview can come.
enum PreviewsSettled {
    /// Returns once every job queued on `stage`'s preview threads before the call has ended: it fills each thread
    /// with a job of its own, which can only happen once the jobs before them (the pool takes them in order) are
    /// done.
    static func drain(_ stage: ImageWorkers) async {
        let threads = stage.previews.threads
        let arrived = ResultlessCounter()
        let leave = DispatchSemaphore(value: 0)
        for _ in 0..<threads {
            stage.previews.submit {
                arrived.increment()
                leave.wait()
            }
        }
        await arrived.wait(for: threads)
        for _ in 0..<threads { leave.signal() }
    }

    /// ``drain(_:)`` for the stages a manager's downloads decode their previews on.
    static func drain(_ manager: KingfisherManager) async {
        await drain(manager.pipeline.workers)
        await drain(manager.downloader.workers)
    }
}

/// Tells `ended` each time one of its downloader's downloads ends (`imageDownloader(_:didFinishDownloadingImageFor
/// URL:with:error:)`, after the body was read or cut off). The downloader holds its delegate weakly: keep it.
final class DownloadEnds: ImageDownloaderDelegate, Sendable {
    let ended = ResultlessCounter()

    func imageDownloader(
        _ downloader: ImageDownloader, didFinishDownloadingImageForURL url: URL, with response: URLResponse?,
        error: (any Error)?
    ) {
        ended.increment()
    }
}
