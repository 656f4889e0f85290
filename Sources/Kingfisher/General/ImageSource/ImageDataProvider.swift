public import Foundation
import KingfisherLocking

/// Supplies image data from somewhere other than the downloader: a file, base64 text, bytes in memory, a
/// video frame. Conform with either `data` method; each has a default that bridges to the other.
///
/// - Important: Implement at least one of ``data(handler:)`` and ``data()``; the defaults call each other.
public protocol ImageDataProvider: Sendable {
    /// The key the image is cached under.
    var cacheKey: String { get }

    /// Delivers the data, or an error, exactly once, on any thread.
    func data(handler: @escaping @Sendable (Result<Data, any Error>) -> Void)

    /// The data, or an error.
    func data() async throws -> Data

    /// The URL the data comes from, if there is one. `nil` by default.
    var contentURL: URL? { get }
}

extension ImageDataProvider {
    public var contentURL: URL? { nil }

    public func data() async throws -> Data {
        try await withSanitizedCheckedThrowingContinuation { continuation in
            data { continuation.resume(with: $0) }
        }
    }

    public func data(handler: @escaping @Sendable (Result<Data, any Error>) -> Void) {
        CallbackEdge(handler).run {
            do {
                return .success(try await data())
            } catch {
                return .failure(error)
            }
        }
    }
}
