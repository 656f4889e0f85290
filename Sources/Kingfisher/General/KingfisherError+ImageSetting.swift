extension KingfisherError {
    /// Getting an image to its target, or the data for it from a provider, failed. Codes 5001...
    public enum ImageSettingErrorReason: Sendable {
        /// The source was `nil`: there was nothing to load. Code 5001.
        case emptySource
        /// An ``ImageDataProvider`` failed; `error` is what it reported. Code 5003.
        case dataProviderError(provider: any ImageDataProvider, error: any Error)
    }
}

extension KingfisherError.ImageSettingErrorReason {
    public var errorCode: Int {
        switch self {
        case .emptySource: 5001
        case .dataProviderError: 5003
        }
    }

    public var errorDescription: String {
        switch self {
        case .emptySource:
            "There is no source to load an image from."
        case .dataProviderError(let provider, let error):
            "The data provider for key \"\(provider.cacheKey)\" failed: \(error)"
        }
    }
}
