public import Foundation

extension ImageDownloader {
    /// Downloads and processes the image at `url`; the async twin of
    /// ``downloadImage(with:options:progressBlock:completionHandler:)-(_,KingfisherOptionsInfo?,_,_)``.
    ///
    /// Cancelling the calling task cancels this caller only (other callers of the same URL go on).
    /// - Throws: a ``KingfisherError``; cancellation throws one whose ``KingfisherError/isTaskCancelled`` is `true`.
    public func downloadImage(
        with url: URL, options: KingfisherOptionsInfo? = nil
    ) async throws -> ImageLoadingResult {
        try await downloadImage(with: url, options: KingfisherParsedOptionsInfo(options))
    }

    /// As ``downloadImage(with:options:)-(_,KingfisherOptionsInfo?)``, with an optional progress block, called as
    /// body bytes arrive on the options' callback queue (`.untouch` by default), never needing the main queue.
    public func downloadImage(
        with url: URL, options: KingfisherOptionsInfo? = nil, progressBlock: DownloadProgressBlock? = nil
    ) async throws -> ImageLoadingResult {
        try await downloadImage(with: url, options: KingfisherParsedOptionsInfo(options), progressBlock: progressBlock)
    }

    /// As ``downloadImage(with:options:)-(_,KingfisherOptionsInfo?)``, with parsed options and an optional
    /// progress block. Runs in the calling task; a subclass's ``downloadImage(with:options:completionHandler:)``
    /// override sees it (then through that callback).
    public func downloadImage(
        with url: URL, options: KingfisherParsedOptionsInfo, progressBlock: DownloadProgressBlock? = nil
    ) async throws(KingfisherError) -> ImageLoadingResult {
        let handle = DownloadTask()
        let context = Self.directCallerContext(options)
        let result = await download(
            url, options: options, context: context, progressBlock: progressBlock, handle: handle)
        handle.markFinished()
        await context.previewSink?.close()
        return try result.get()
    }
}
