public import Foundation

/// Image bytes already in memory.
public struct RawImageDataProvider: ImageDataProvider {
    /// The image bytes.
    public let data: Data
    /// The key the image is cached under.
    public let cacheKey: String

    public init(data: Data, cacheKey: String) {
        self.data = data
        self.cacheKey = cacheKey
    }

    /// Calls `handler` with ``data`` before returning, as Kingfisher does.
    public func data(handler: @escaping @Sendable (Result<Data, any Error>) -> Void) {
        handler(.success(data))
    }

    public func data() async throws -> Data {
        data
    }
}
