extension KingfisherError {
    /// Building or sending a request failed. Codes 1001...; the cases arrive with the component that raises them.
    public enum RequestErrorReason: Sendable {}
}

extension KingfisherError.RequestErrorReason {
    public var errorCode: Int {
        switch self {}
    }

    public var errorDescription: String {
        switch self {}
    }
}
