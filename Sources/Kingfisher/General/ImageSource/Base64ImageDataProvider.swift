public import Foundation

/// Image data encoded as base64 text, for example from a `data:` URL's payload or a JSON field.
public struct Base64ImageDataProvider: ImageDataProvider {
    /// The base64 text; whitespace and line breaks are ignored.
    public let base64String: String
    public let cacheKey: String

    public init(base64String: String, cacheKey: String) {
        self.base64String = base64String
        self.cacheKey = cacheKey
    }

    /// Decodes the text and calls `handler` before returning, as Kingfisher does (where invalid text crashes, here
    /// it is a `KingfisherError.imageSettingError(.dataProviderError)` wrapping a ``Base64DecodingError``).
    public func data(handler: @escaping @Sendable (Result<Data, any Error>) -> Void) {
        handler(decoded().mapError { $0 })
    }

    /// The decoded bytes. Throws `KingfisherError.imageSettingError(.dataProviderError)` when the text is not
    /// valid base64.
    public func data() async throws -> Data {
        try decoded().get()
    }

    private func decoded() -> Result<Data, KingfisherError> {
        guard let data = Data(base64Encoded: base64String, options: .ignoreUnknownCharacters), !data.isEmpty else {
            return .failure(
                .imageSettingError(
                    reason: .dataProviderError(provider: self, error: Base64DecodingError(length: base64String.count))))
        }
        return .success(data)
    }
}

/// The base64 text given to a ``Base64ImageDataProvider`` could not be decoded.
public struct Base64DecodingError: Error, Sendable, CustomStringConvertible {
    /// Characters in the text.
    public let length: Int

    public var description: String { "\(length) characters of text are not valid base64 image data" }
}
