public import Foundation

/// Image bytes already in memory.
public struct RawImageDataProvider: ImageDataProvider {
    public let data: Data
    public let cacheKey: String

    public init(data: Data, cacheKey: String) {
        self.data = data
        self.cacheKey = cacheKey
    }

    public func data(handler: @escaping @Sendable (Result<Data, any Error>) -> Void) {
        handler(.success(data))
    }

    public func data() async throws -> Data {
        data
    }
}
