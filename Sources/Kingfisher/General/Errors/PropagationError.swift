/// One failed source of a retrieval with `.alternativeSources`, and why it failed; carried by
/// ``KingfisherError/ImageSettingErrorReason/alternativeSourcesExhausted(_:)``.
public struct PropagationError: Sendable {
    /// The source that was tried.
    public let source: Source
    /// Why it failed.
    public let error: KingfisherError

    public init(source: Source, error: KingfisherError) {
        self.source = source
        self.error = error
    }
}
