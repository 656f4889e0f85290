import KingfisherLocking

/// Progressive JPEG previews on every option setter (``KF/Builder`` and a user's own ``KFOptionSetter``).
extension KFOptionSetter {
    /// Shows previews of a progressive JPEG while it downloads: `.progressiveJPEG(progressive)`; `nil` turns them
    /// off. Previews are blurred, from the fastest scan, with no minimum interval by default (``ImageProgressive/init()``).
    @discardableResult
    public func progressiveJPEG(_ progressive: ImageProgressive? = ImageProgressive()) -> Self {
        changing { $0.progressiveJPEG = progressive }
    }
}

extension KF.Builder {
    /// Starts retrieving with the collected options and returns at once: the previews (with
    /// ``KFOptionSetter/progressiveJPEG(_:)``) as an `AsyncStream`, then the result; the
    /// ``KFOptionSetter/onProgress(_:)``, ``KFOptionSetter/onSuccess(_:)`` and ``KFOptionSetter/onFailure(_:)``
    /// blocks are called on the way. Ours; see ``ImageRetrievalTask``.
    public func retrievalTask() -> ImageRetrievalTask {
        let manager = state.withLock { $0.manager } ?? .shared
        let onSuccess = onSuccessDelegate
        let onFailure = onFailureDelegate
        return ImageRetrievalTask(
            manager: manager, source: source, options: options, progressBlock: progressBlock,
            onSuccess: { _ = onSuccess.call($0) }, onFailure: { _ = onFailure.call($0) })
    }
}
