import Foundation
import Kingfisher
import KingfisherTestSupport
import KingfisherLocking

/// A fresh loopback server, downloader and temp-dir cache, and a manager over them; all torn down afterwards.
struct ManagerFixture {
    let server: TestHTTPServer
    let downloader: ImageDownloader
    let cache: ImageCache
    let directory: URL
    let manager: KingfisherManager
}

@discardableResult
func withManager<T>(_ body: (ManagerFixture) async throws -> T) async throws -> T {
    try await withTemporaryDirectory { directory in
        try await withDownloader { server, downloader in
            let cache = try makeCache(in: directory)
            let manager = KingfisherManager(downloader: downloader, cache: cache)
            let result = try await body(
                ManagerFixture(
                    server: server, downloader: downloader, cache: cache, directory: directory, manager: manager))
            // Retrievals without `waitForCache` complete before their disk write; a read on the cache's I/O queue
            // runs after the writes queued so far, so none lands after the directory is removed.
            _ = try? await cache.calculateDiskStorageSize()
            return result
        }
    }
}

extension KingfisherManager {
    /// The callback API, awaited: the result the completion handler got.
    func callbackResult(
        _ source: Source, options: KingfisherOptionsInfo? = nil
    ) async -> Result<RetrieveImageResult, KingfisherError> {
        await withSanitizedCheckedContinuation { continuation in
            retrieveImage(with: source, options: options) { continuation.resume(returning: $0) }
        }
    }
}

/// Collects retrieval results and lets a test wait for a number of them.
final class RetrievalCollector: Sendable {
    private let state = Locked<[Result<RetrieveImageResult, KingfisherError>]>([])
    private let counter = ResultlessCounter()

    var handler: @Sendable (Result<RetrieveImageResult, KingfisherError>) -> Void {
        { result in
            self.state.withLock { $0.append(result) }
            self.counter.increment()
        }
    }

    var results: [Result<RetrieveImageResult, KingfisherError>] { state.withLock { $0 } }

    func wait(for count: Int) async { await counter.wait(for: count) }
}

extension Result where Success == RetrieveImageResult, Failure == KingfisherError {
    var failure: KingfisherError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// A provider that fails with an error of its own, not a `KingfisherError`.
struct FailingProvider: ImageDataProvider {
    struct Failure: Error {}
    let cacheKey: String

    func data() async throws -> Data { throw Failure() }
}

/// A provider that counts its calls and hands out fixed bytes.
final class CountingProvider: ImageDataProvider {
    let cacheKey: String
    let bytes: Data
    private let calls = Locked(0)

    init(cacheKey: String, bytes: Data) {
        self.cacheKey = cacheKey
        self.bytes = bytes
    }

    var callCount: Int { calls.withLock { $0 } }

    func data() async throws -> Data {
        calls.withLock { $0 += 1 }
        return bytes
    }
}
