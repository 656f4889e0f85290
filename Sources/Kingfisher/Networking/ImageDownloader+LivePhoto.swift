public import Foundation
import KingfisherLocking

/// The bytes of one downloaded Live Photo file.
public struct LivePhotoResourceDownloadingResult: Sendable {
    /// The URL the bytes were downloaded from (a provider's ``ImageDataProvider/contentURL``), when known.
    public let url: URL?

    /// The bytes as received.
    public let originalData: Data

    /// A result holding `originalData` from `url`.
    public init(originalData: Data, url: URL? = nil) {
        self.url = url
        self.originalData = originalData
    }
}

extension ImageDownloader {
    /// Downloads the bytes of a Live Photo file, without decoding them (a video is not an image).
    ///
    /// The options' processor is replaced by the internal Live Photo processor, as in Kingfisher; request
    /// modifier, redirect handler, retry strategy, priority and callback queue apply.
    /// - Returns: this caller's task; cancel it to cancel this caller only.
    @discardableResult
    public func downloadLivePhotoResource(
        with url: URL,
        options: KingfisherParsedOptionsInfo,
        completionHandler: (@Sendable (Result<LivePhotoResourceDownloadingResult, KingfisherError>) -> Void)? = nil
    ) -> DownloadTask {
        downloadLivePhotoResource(with: url, options: options, progressBlock: nil, completionHandler: completionHandler)
    }

    /// Downloads the bytes of a Live Photo file; the `async` twin of
    /// ``downloadLivePhotoResource(with:options:completionHandler:)``. Cancelling the calling task cancels the
    /// download (an error whose ``KingfisherError/isTaskCancelled`` is `true`).
    public func downloadLivePhotoResource(
        with url: URL, options: KingfisherParsedOptionsInfo
    ) async throws -> LivePhotoResourceDownloadingResult {
        try await downloadLivePhotoResource(with: url, options: options, progressBlock: nil)
    }

    /// The `async` download with a progress block (on the options' callback queue).
    func downloadLivePhotoResource(
        with url: URL, options: KingfisherParsedOptionsInfo, progressBlock: DownloadProgressBlock?
    ) async throws -> LivePhotoResourceDownloadingResult {
        let loaded = try await downloadImage(
            with: url, options: LivePhotoImageProcessor.options(options), progressBlock: progressBlock)
        return LivePhotoResourceDownloadingResult(originalData: loaded.originalData, url: loaded.url)
    }

    private func downloadLivePhotoResource(
        with url: URL, options: KingfisherParsedOptionsInfo, progressBlock: DownloadProgressBlock?,
        completionHandler: (@Sendable (Result<LivePhotoResourceDownloadingResult, KingfisherError>) -> Void)?
    ) -> DownloadTask {
        downloadImage(
            with: url, options: LivePhotoImageProcessor.options(options), progressBlock: progressBlock
        ) { result in
            completionHandler?(
                result.map { LivePhotoResourceDownloadingResult(originalData: $0.originalData, url: $0.url) })
        }
    }
}
