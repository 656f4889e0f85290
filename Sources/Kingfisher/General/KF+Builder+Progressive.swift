import Synchronization

/// Progressive JPEG previews on ``KF/Builder``.
extension KF.Builder {
    /// Shows previews of a progressive JPEG while it downloads: `.progressiveJPEG(progressive)`; `nil` turns them
    /// off. Previews are blurred, from the fastest scan, with no minimum interval by default (``ImageProgressive/init()``).
    @discardableResult
    public func progressiveJPEG(_ progressive: ImageProgressive? = ImageProgressive()) -> Self {
        with { $0.progressiveJPEG = progressive }
    }

    /// Starts retrieving with the collected options and returns at once: the previews (with ``progressiveJPEG(_:)``)
    /// as an `AsyncStream`, then the result; ``onProgress(_:)``, ``onSuccess(_:)`` and ``onFailure(_:)`` are called
    /// on the way. Ours; see ``ImageRetrievalTask``.
    public func retrievalTask() -> ImageRetrievalTask {
        let current = state.withLock { $0 }
        return ImageRetrievalTask(
            manager: current.manager ?? .shared, source: source, options: options, progressBlock: current.progress,
            onSuccess: current.onSuccess, onFailure: current.onFailure)
    }
}
