public import Foundation
import KingfisherLocking

/// Reads an image file from disk, on its loading queue.
///
/// ```swift
/// let provider = LocalFileImageDataProvider(fileURL: url, loadingQueue: .operationQueue(myQueue))
/// let bytes = try await provider.data
/// ```
public struct LocalFileImageDataProvider: ImageDataProvider {
    /// The file to read.
    public let fileURL: URL
    /// The cache key: the file URL's stable local key unless one was given.
    public let cacheKey: String
    /// Where the file is read: `.dispatch(.global(qos: .userInitiated))` by default, as in Kingfisher; `.untouch`
    /// reads on the calling thread.
    public let loadingQueue: ExecutionQueue

    public init(
        fileURL: URL, cacheKey: String? = nil,
        loadingQueue: ExecutionQueue = .dispatch(DispatchQueue.global(qos: .userInitiated))
    ) {
        self.fileURL = fileURL
        self.cacheKey = cacheKey ?? fileURL.localFileCacheKey
        self.loadingQueue = loadingQueue
    }

    public var contentURL: URL? { fileURL }

    /// Reads the file on ``loadingQueue`` and hands its bytes, or the error, to `handler` there.
    public func data(handler: @escaping @Sendable (Result<Data, any Error>) -> Void) {
        loadingQueue.execute { [self] in handler(read()) }
    }

    /// The file's bytes, read on ``loadingQueue`` (the calling task moves there for the read). Throws
    /// `KingfisherError.imageSettingError(.dataProviderError)` wrapping the file error when it cannot be read
    /// (missing, a directory, no permission).
    public var data: Data {
        get async throws {
            guard let executor = CallbackQueueExecutor(loadingQueue) else { return try read().get() }
            return try await withTaskExecutorPreference(executor) { try read().get() }
        }
    }

    private func read() -> Result<Data, any Error> {
        Result { try Data(contentsOf: fileURL) }.mapError { error in
            KingfisherError.imageSettingError(reason: .dataProviderError(provider: self, error: error))
        }
    }

    /// The file's bytes: the same as ``data``.
    public func data() async throws -> Data {
        try await data
    }
}
