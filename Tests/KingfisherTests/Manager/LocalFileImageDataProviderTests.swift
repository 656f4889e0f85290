import Foundation
import Kingfisher
import KingfisherLocking
import XCTest

/// `LocalFileImageDataProvider(fileURL:cacheKey:loadingQueue:)` reads on its loading queue, and its `data` is an
/// `async throws` property, as in Kingfisher 8.11.
final class LocalFileImageDataProviderTests: XCTestCase {
    /// Counts the blocks given to it and runs them at once on the caller's thread.
    private final class CountingQueue: CallbackOperationQueue {
        private let added = Locked(0)
        var count: Int { added.withLock { $0 } }

        func addOperation(_ block: @escaping @Sendable () -> Void) {
            added.withLock { $0 += 1 }
            block()
        }
    }

    func testTheAsyncDataPropertyReadsTheFileOnTheLoadingQueue() async throws {
        try await withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("photo.png")
            let png = Fixtures.png()
            try png.write(to: file)
            let queue = CountingQueue()
            let provider = LocalFileImageDataProvider(fileURL: file, loadingQueue: .operationQueue(queue))
            let bytes = try await provider.data
            XCTAssertEqual(bytes, png)
            XCTAssertEqual(queue.count, 1, "the read went through the loading queue")
            XCTAssertEqual(provider.cacheKey, file.cacheKey)
            XCTAssertEqual(provider.contentURL, file)
        }
    }

    func testUntouchReadsOnTheCallingThreadBeforeReturning() async throws {
        try await withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("photo.png")
            try Fixtures.png().write(to: file)
            let provider = LocalFileImageDataProvider(fileURL: file, cacheKey: "mine", loadingQueue: .untouch)
            let result = Locked<Result<Data, any Error>?>(nil)
            provider.data { value in result.withLock { $0 = value } }
            XCTAssertEqual(try result.withLock { $0 }?.get().count, Fixtures.png().count)
            XCTAssertEqual(provider.cacheKey, "mine")
        }
    }

    func testTheDefaultQueueReadsOffTheCallerAndAMissingFileIsADataProviderError() async throws {
        try await withTemporaryDirectory { directory in
            let missing = directory.appendingPathComponent("missing.png")
            let provider = LocalFileImageDataProvider(fileURL: missing)
            do {
                _ = try await provider.data
                XCTFail("a missing file produced data")
            } catch let error as KingfisherError {
                guard case .imageSettingError(reason: .dataProviderError(let failed, _)) = error else {
                    XCTFail("expected dataProviderError, got \(error)")
                    return
                }
                XCTAssertEqual(failed.cacheKey, provider.cacheKey)
            }
        }
    }
}
