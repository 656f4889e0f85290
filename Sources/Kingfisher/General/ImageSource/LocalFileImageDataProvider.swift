public import Foundation

/// Reads an image file from disk, off the caller's thread.
public struct LocalFileImageDataProvider: ImageDataProvider {
    /// The file to read.
    public let fileURL: URL
    /// The cache key: the file URL's stable local key unless one was given.
    public let cacheKey: String

    public init(fileURL: URL, cacheKey: String? = nil) {
        self.fileURL = fileURL
        self.cacheKey = cacheKey ?? fileURL.localFileCacheKey
    }

    public var contentURL: URL? { fileURL }

    /// The file's bytes. Throws `KingfisherError.imageSettingError(.dataProviderError)` wrapping the file error
    /// when it cannot be read (missing, a directory, no permission).
    public func data() async throws -> Data {
        let url = fileURL
        let result = await Task.detached(priority: .userInitiated) { () -> Result<Data, any Error> in
            Result { try Data(contentsOf: url) }
        }.value
        switch result {
        case .success(let data):
            return data
        case .failure(let error):
            throw KingfisherError.imageSettingError(reason: .dataProviderError(provider: self, error: error))
        }
    }
}
