extension KingfisherError {
    /// Receiving a response failed. Codes 2001...; the cases arrive with the component that raises them.
    public enum ResponseErrorReason: Sendable {}
}

extension KingfisherError.ResponseErrorReason {
    public var errorCode: Int {
        switch self {}
    }

    public var errorDescription: String {
        switch self {}
    }
}
