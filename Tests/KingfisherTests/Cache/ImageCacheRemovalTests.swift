import Foundation
import Logging
import Kingfisher
import KingfisherLocking
import XCTest

/// `ImageCache.removeImage` in Kingfisher 8.11's shape: a zero-argument completion, `forcedExtension`, and an
/// `async throws` twin.
final class ImageCacheRemovalTests: XCTestCase {
    private let image = Fixtures.gradient(width: 8, height: 8)

    func testTheCallbackFormRemovesFromBothLayersThenCallsBackOnItsQueue() async throws {
        try await withTemporaryDirectory { directory in
            // Given an image in memory and on disk under a processor and a forced extension
            let cache = try makeCache(in: directory)
            try await cache.store(image, forKey: "k", processorIdentifier: "p", forcedExtension: "png")
            XCTAssertEqual(
                cache.imageCachedType(forKey: "k", processorIdentifier: "p", forcedExtension: "png"), .memory)
            // When it is removed with Kingfisher's zero-argument completion on a queue of the caller's choosing
            let queue = DispatchQueue(label: "removal-callback")
            let marker = DispatchSpecificKey<Bool>()
            queue.setSpecific(key: marker, value: true)
            let calledOnQueue = await withSanitizedCheckedContinuation { continuation in
                cache.removeImage(
                    forKey: "k", processorIdentifier: "p", forcedExtension: "png", callbackQueue: .dispatch(queue)
                ) {
                    continuation.resume(returning: DispatchQueue.getSpecific(key: marker) == true)
                }
            }
            // Then the completion ran on that queue after both layers were emptied
            XCTAssertTrue(calledOnQueue)
            XCTAssertEqual(cache.imageCachedType(forKey: "k", processorIdentifier: "p", forcedExtension: "png"), .none)
            XCTAssertTrue(cacheFiles(in: cache.diskStorage.directoryURL).isEmpty)
        }
    }

    func testFromDiskFalseKeepsTheFileAndStillCallsBack() async throws {
        try await withTemporaryDirectory { directory in
            let cache = try makeCache(in: directory)
            try await cache.store(image, forKey: "k")
            await withSanitizedCheckedContinuation { continuation in
                cache.removeImage(forKey: "k", fromDisk: false) { continuation.resume() }
            }
            XCTAssertEqual(cache.imageCachedType(forKey: "k"), .disk)
        }
    }

    func testAFailedDiskRemovalIsLoggedByTheCallbackFormAndThrownByTheAsyncOne() async throws {
        try await withTemporaryDirectory { directory in
            // Given a directory where the cache file of "k" would be: unlink fails (EISDIR), even for root
            let cache = try makeCache(in: directory)
            let log = RecordingLog()
            cache.logger = log.logger
            try FileManager.default.createDirectory(
                atPath: cache.cachePath(forKey: "k"), withIntermediateDirectories: false)
            // When the callback form removes it: the completion still runs, and the failure goes to the logger
            await withSanitizedCheckedContinuation { continuation in
                cache.removeImage(forKey: "k") { continuation.resume() }
            }
            let warning = log.entries.first { $0.message.contains("could not be removed") }
            XCTAssertEqual(warning?.level, .warning)
            XCTAssertEqual(warning?.metadata["kf.key"], "k")
            // When the async form removes it: the failure is thrown
            do {
                try await cache.removeImage(forKey: "k")
                XCTFail("expected cannotRemoveCacheFile")
            } catch let error as KingfisherError {
                guard case .cacheError(reason: .cannotRemoveCacheFile(let url, _)) = error else {
                    return XCTFail("unexpected \(error)")
                }
                XCTAssertEqual(url.path, cache.cachePath(forKey: "k"))
            }
        }
    }

    func testTheAsyncFormReturnsAfterTheFileIsGone() async throws {
        try await withTemporaryDirectory { directory in
            let cache = try makeCache(in: directory)
            try await cache.storeToDisk(Fixtures.png(), forKey: "k", forcedExtension: "heic")
            XCTAssertNotNil(cache.cacheFileURLIfOnDisk(forKey: "k", forcedExtension: "heic"))
            try await cache.removeImage(forKey: "k", forcedExtension: "heic")
            XCTAssertNil(cache.cacheFileURLIfOnDisk(forKey: "k", forcedExtension: "heic"))
        }
    }
}
