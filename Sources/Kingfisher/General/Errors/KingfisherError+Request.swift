public import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

extension KingfisherError {
    /// Building or starting a request failed, or the caller cancelled it. Codes 1001...
    public enum RequestErrorReason: Sendable {
        /// The request modifier returned `nil`. Code 1001.
        case emptyRequest
        /// The request has no URL, or one the downloader cannot fetch (only `http` and `https` with a host, and
        /// `s3://bucket/key`, are accepted; `file://` URLs go through `LocalFileImageDataProvider`). Code 1002.
        case invalidURL(request: URLRequest)
        /// The caller cancelled the download task. `task` is the shared HTTP task the caller was attached to and
        /// `token` the caller's token on it. Code 1003.
        case taskCancelled(task: SessionDataTask, token: SessionDataTask.CancelToken)
        /// The caller cancelled the loading of a Live Photo (the task running
        /// ``KingfisherManager/retrieveLivePhoto(with:options:progressBlock:referenceTaskIdentifierChecker:)``).
        /// Code 1004.
        case livePhotoTaskCancelled(source: LivePhotoSource)
        /// The caller cancelled before its request was attached to an HTTP task (while the request modifier ran,
        /// or between retries). Code 1005.
        case asyncTaskContextCancelled
        /// The caller cancelled a retrieval while its ``ImageDataProvider`` was loading (or its data was being
        /// decoded and processed): the returned ``DownloadTask`` was cancelled, or the Swift task of an `async`
        /// retrieval. The provider's task is cancelled too, so a provider that honours task cancellation stops.
        /// ``KingfisherError/isTaskCancelled`` is `true` for it. Code 1006.
        case dataProviderCancelled(provider: any ImageDataProvider)
        /// An `s3://` URL, and no object storage settings to fetch it with: the standard AWS settings could not be
        /// read (``S3Configuration/fromEnvironment(_:profile:)`` says why in `reason`). Code 1101 (ours).
        case objectStorageUnconfigured(url: URL, reason: String)
    }
}

extension KingfisherError.RequestErrorReason {
    public var errorCode: Int {
        switch self {
        case .emptyRequest: 1001
        case .invalidURL: 1002
        case .taskCancelled: 1003
        case .livePhotoTaskCancelled: 1004
        case .asyncTaskContextCancelled: 1005
        case .dataProviderCancelled: 1006
        case .objectStorageUnconfigured: 1101
        }
    }

    public var errorDescription: String {
        switch self {
        case .emptyRequest:
            return "The request modifier returned nil, so no request was sent."
        case .invalidURL(let request):
            let url = request.url?.absoluteString ?? "(no URL)"
            return "The URL \(url) cannot be downloaded: only http and https URLs with a host, and s3://bucket/key, "
                + "are supported (use LocalFileImageDataProvider for file URLs)."
        case .taskCancelled(let task, let token):
            return "The download of \(task.url.absoluteString) was cancelled by its caller (token \(token))."
        case .livePhotoTaskCancelled(let source):
            return "The loading of a Live Photo of \(source.resources.count) files was cancelled by its caller."
        case .asyncTaskContextCancelled:
            return "The download was cancelled before its request was started."
        case .dataProviderCancelled(let provider):
            return
                "Loading the image of the data provider with cache key \(provider.cacheKey) was cancelled by its caller."
        case .objectStorageUnconfigured(let url, let reason):
            return "\(url.absoluteString) cannot be fetched: \(reason) (set ImageDownloader.Configuration."
                + "objectStorage, or the AWS_* variables)."
        }
    }
}
