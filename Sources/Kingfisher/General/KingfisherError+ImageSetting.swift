extension KingfisherError {
    /// Delivering an image to its target failed. Codes 5001...; the cases arrive with the component that raises them.
    public enum ImageSettingErrorReason: Sendable {}
}

extension KingfisherError.ImageSettingErrorReason {
    public var errorCode: Int {
        switch self {}
    }

    public var errorDescription: String {
        switch self {}
    }
}
