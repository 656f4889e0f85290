import Foundation

extension KingfisherError {
    /// Getting an image to its target, or the data for it from a provider, failed. Codes 5001...
    public enum ImageSettingErrorReason: Sendable {
        /// The source was `nil`: there was nothing to load. Code 5001.
        case emptySource
        /// The image arrived for a request its target no longer waits for: a newer request replaced it, or the
        /// target is gone. `result` is what was retrieved (not set on the target), `error` the failure if the
        /// retrieval failed, `source` what the superseded request asked for. Code 5002.
        indirect case notCurrentSourceTask(result: RetrieveImageResult?, error: (any Error)?, source: Source)
        /// An ``ImageDataProvider`` failed; `error` is what it reported. Code 5003.
        case dataProviderError(provider: any ImageDataProvider, error: any Error)
        /// The source and every one of `.alternativeSources` failed; the errors are in the order the sources were
        /// tried. Code 5004.
        case alternativeSourcesExhausted([PropagationError])
    }
}

extension KingfisherError.ImageSettingErrorReason {
    public var errorCode: Int {
        switch self {
        case .emptySource: 5001
        case .notCurrentSourceTask: 5002
        case .dataProviderError: 5003
        case .alternativeSourcesExhausted: 5004
        }
    }

    public var errorDescription: String {
        switch self {
        case .emptySource:
            "There is no source to load an image from."
        case .notCurrentSourceTask(_, let error, let source):
            "The image of \(source.url?.absoluteString ?? source.cacheKey) was not set: its target no longer waits for "
                + "it (a newer request replaced it, or the target is gone)"
                + (error.map { ". The retrieval had failed: \(KingfisherError.readableDescription(of: $0))" } ?? ".")
        case .dataProviderError(let provider, let error):
            "The data provider for key \"\(provider.cacheKey)\" failed: \(KingfisherError.readableDescription(of: error))"
        case .alternativeSourcesExhausted(let errors):
            "The image and all its alternative sources failed: "
                + errors.map { "\($0.source.url?.absoluteString ?? $0.source.cacheKey): \($0.error)" }
                .joined(separator: "; ")
        }
    }
}
