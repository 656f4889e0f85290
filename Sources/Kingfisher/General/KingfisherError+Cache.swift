extension KingfisherError {
    /// Reading or writing a cache failed. Codes 3001...; the cases arrive with the component that raises them.
    public enum CacheErrorReason: Sendable {}
}

extension KingfisherError.CacheErrorReason {
    public var errorCode: Int {
        switch self {}
    }

    public var errorDescription: String {
        switch self {}
    }
}
