import Foundation

/// What the pipeline hands a download besides its caller's options: where its image is decoded and with which
/// limits, where its previews go, and, for a revalidation or a body to resume, the validators and the store of
/// cut-off bodies. Never part of ``KingfisherParsedOptionsInfo``: no option sets these.
struct DownloadContext: Sendable {
    /// Where the caller's image is decoded and processed; the downloader's own workers when `nil`.
    var workers: ImageWorkers?
    /// The decode limits of the load's owner (a manager), when it has its own; the downloader's otherwise.
    var engine: ImageEngine.Configuration?
    /// Where this load's previews go; set by whoever starts a load with `progressiveJPEG` (a target, the manager,
    /// an ``ImageRetrievalTask``, a direct caller of the downloader).
    var previewSink: PreviewSink?
    /// Header fields that make the download a conditional request (`If-None-Match`, `If-Modified-Since`), added
    /// after the request modifier: a revalidation of a cached entry.
    var conditionalHeaders: [String: String]?
    /// Where a body cut off mid-transfer is kept, and looked for before a request, so that the download resumes
    /// (see ``PartialDownload``); `nil` downloads every body whole.
    var partialDownloads: PartialDownloadStore?
}
