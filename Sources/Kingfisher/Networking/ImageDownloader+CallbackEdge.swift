import AsyncHTTPClient
import Foundation
import KingfisherLocking

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension KingfisherError {
    /// A request error: the request could not be made (empty, invalid URL) or the work was cancelled.
    var isRequestError: Bool {
        if case .requestError = self { return true }
        return false
    }
}

/// What a caller inside the library hands to ``ImageDownloader/downloadImage(with:options:completionHandler:)``
/// besides its parameters, when that method is a subclass's override: the handle to use (the manager's retrieval
/// task) and the progress block. Kingfisher carries the progress block in its options; here it rides in a
/// task-local value that the first matching call claims, so an override that calls `super` keeps both.
final class DownloadHandOff: Sendable {
    @TaskLocal static var current: DownloadHandOff?

    let url: URL
    let handle: DownloadTask
    /// Whether delivering ends the handle (`false` when it belongs to a retrieval that goes on).
    let finishesHandle: Bool
    let progressBlock: DownloadProgressBlock?
    /// What the pipeline hands the download besides the options.
    let context: DownloadContext
    private let claimed = Locked(false)

    init(
        url: URL, handle: DownloadTask, finishesHandle: Bool, progressBlock: DownloadProgressBlock?,
        context: DownloadContext
    ) {
        self.url = url
        self.handle = handle
        self.finishesHandle = finishesHandle
        self.progressBlock = progressBlock
        self.context = context
    }

    /// `true` the first time it is asked for `url`.
    func claim(for url: URL) -> Bool {
        guard url == self.url else { return false }
        return claimed.withLock { claimed in
            defer { claimed = true }
            return !claimed
        }
    }
}

extension ImageDownloader {
    /// The callback form of ``load(_:options:progressBlock:joined:context:placed:)``: runs it in a task of its own
    /// and delivers its result once on the callback queue; cancelling `handle` cancels that task and tells the
    /// caller at once. The handle stays here, at the edge: the download records where it is on it.
    /// - Parameter finishesHandle: whether delivering ends `handle` (`false` when the handle belongs to a
    ///   retrieval that goes on after the download).
    func startLoad(
        _ url: URL, options: KingfisherParsedOptionsInfo, context: DownloadContext,
        progressBlock: DownloadProgressBlock?, handle: DownloadTask, finishesHandle: Bool,
        completion: (@Sendable (Result<ImageLoadingResult, KingfisherError>) -> Void)?
    ) {
        let sink = finishesHandle ? context.previewSink : nil
        let deliver = CallbackEdge(on: options.callbackQueue, closing: sink, completion)
        let placed = handle.placement(requestModifier: options.requestModifier)
        let joined =
            handle.isCancelled
            ? nil
            : joinSynchronously(
                url, options: options, context: context, progressBlock: progressBlock, placed: placed)
        let cancel = deliver.run {
            let result = await self.load(
                url, options: options, progressBlock: progressBlock, joined: joined, context: context, placed: placed)
            if finishesHandle { handle.markFinished() }
            return result
        }
        handle.onCancel { reason in cancel(.failure(reason)) }
    }

    /// Starts a download through the open ``downloadImage(with:options:completionHandler:)``, so that a
    /// subclass's override sees it, with `handle` and `progressBlock` handed over; without a subclass, straight to
    /// ``startLoad(_:options:progressBlock:handle:finishesHandle:completion:)``. When an override answers with a
    /// task of its own instead of calling `super`, cancelling `handle` cancels that one and reports the
    /// cancellation.
    func start(
        _ url: URL, options: KingfisherParsedOptionsInfo, context: DownloadContext,
        progressBlock: DownloadProgressBlock?, handle: DownloadTask, finishesHandle: Bool,
        completion: (@Sendable (Result<ImageLoadingResult, KingfisherError>) -> Void)?
    ) {
        guard type(of: self) != ImageDownloader.self else {
            startLoad(
                url, options: options, context: context, progressBlock: progressBlock, handle: handle,
                finishesHandle: finishesHandle, completion: completion)
            return
        }
        let deliver = CallbackEdge(completion)
        let handOff = DownloadHandOff(
            url: url, handle: handle, finishesHandle: finishesHandle, progressBlock: progressBlock, context: context)
        let returned = DownloadHandOff.$current.withValue(handOff) {
            downloadImage(with: url, options: options, completionHandler: { deliver($0) })
        }
        guard returned !== handle else { return }
        let queue = options.callbackQueue
        handle.onCancel { reason in
            returned.cancel()
            queue.execute { deliver(.failure(reason)) }
        }
    }

    /// A download for a caller inside the library (the manager, the prefetcher): straight to
    /// ``load(_:options:progressBlock:joined:context:placed:)``, in the calling task, or through a subclass's
    /// override (see ``start(_:options:context:progressBlock:handle:finishesHandle:completion:)``). Cancelling the
    /// calling task cancels the download; `handle` stays the caller's (it is not finished here).
    func download(
        _ url: URL, options: KingfisherParsedOptionsInfo, context: DownloadContext = DownloadContext(),
        progressBlock: DownloadProgressBlock?, handle: DownloadTask
    ) async -> Result<ImageLoadingResult, KingfisherError> {
        guard type(of: self) != ImageDownloader.self else {
            return await load(
                url, options: options, progressBlock: progressBlock, context: context,
                placed: handle.placement(requestModifier: options.requestModifier))
        }
        // A cancel of the calling task cancels the handle: the override (or super) delivers the cancellation.
        let download: (CallbackEdge<Result<ImageLoadingResult, KingfisherError>>) -> Void = { deliver in
            self.start(
                url, options: options, context: context, progressBlock: progressBlock, handle: handle,
                finishesHandle: false, completion: { deliver($0) })
        }
        return await CallbackEdge.awaiting(download, whenCancelled: { _ in handle.cancel() })
    }

    /// The context of a caller of the downloader itself: progressive previews, without an image target, go to
    /// ``ImageProgressive/onImageUpdated`` only.
    static func directCallerContext(_ options: KingfisherParsedOptionsInfo) -> DownloadContext {
        DownloadContext(
            previewSink: options.progressiveJPEG.flatMap {
                PreviewSink.callingDelegate(of: $0, on: options.callbackQueue)
            })
    }
}
