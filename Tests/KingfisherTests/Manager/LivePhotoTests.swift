import Foundation
import Kingfisher
import KingfisherTestSupport
import KingfisherLocking
import XCTest

/// Live Photo loading: `LivePhotoSource` / `LivePhotoResource`, `ImageDownloader.downloadLivePhotoResource` and
/// `KingfisherManager.retrieveLivePhoto`, against the loopback server and a temp-dir cache.
final class LivePhotoTests: XCTestCase {
    /// The start of an ISO base-media file of `brand` (`heic`, `qt  `) followed by `size` bytes of filler: enough
    /// for type sniffing, and nothing any workers accepts.
    private func mediaFile(brand: String, filler: Int = 200) -> Data {
        Data([0, 0, 0, 24]) + Data("ftyp".utf8) + Data(brand.utf8) + Data(repeating: 0x5A, count: filler)
    }

    private var heic: Data { mediaFile(brand: "heic") }
    private var mov: Data { mediaFile(brand: "qt  ", filler: 300) }

    // MARK: - Sources and file types

    func testFileTypesAreGuessedFromTheURLsExtension() throws {
        let base = URL(string: "https://example.com/")!
        XCTAssertEqual(LivePhotoResource(downloadURL: base.appendingPathComponent("a.heic")).referenceFileType, .heic)
        XCTAssertEqual(LivePhotoResource(downloadURL: base.appendingPathComponent("a.HEIC")).referenceFileType, .heic)
        XCTAssertEqual(LivePhotoResource(downloadURL: base.appendingPathComponent("a.MOV")).referenceFileType, .mov)
        XCTAssertEqual(
            LivePhotoResource(downloadURL: base.appendingPathComponent("a.jpg")).referenceFileType, .other("jpg"))
        XCTAssertEqual(LivePhotoResource(downloadURL: base.appendingPathComponent("a")).referenceFileType, .other(""))
        // A given type wins over the URL
        let given = LivePhotoResource(downloadURL: base.appendingPathComponent("a.heic"), fileType: .mov)
        XCTAssertEqual(given.referenceFileType, .mov)
        // A provider without a content URL has no type until its bytes show one
        let provided = LivePhotoResource(source: .provider(RawImageDataProvider(data: heic, cacheKey: "p")))
        XCTAssertEqual(provided.referenceFileType, .other(""))
        // `init(urls:)` and `init(resources:)` keep order, keys and guesses
        let source = LivePhotoSource(urls: [
            base.appendingPathComponent("s.heic"), base.appendingPathComponent("s.mov"),
        ])
        XCTAssertEqual(source.resources.map(\.referenceFileType), [.heic, .mov])
        XCTAssertEqual(
            source.resources.map(\.dataSource.cacheKey), ["https://example.com/s.heic", "https://example.com/s.mov"])
        let keyed = LivePhotoResource(downloadURL: base.appendingPathComponent("k.mov"), cacheKey: "my-key")
        XCTAssertEqual(keyed.dataSource.cacheKey, "my-key")
    }

    // MARK: - The downloader

    func testTheDownloaderHandsBackTheBytesWithoutDecodingThem() async throws {
        try await withDownloader { server, downloader in
            server.route("/v.mov", .ok(mov, contentType: "video/quicktime"))
            let url = server.url("/v.mov")
            // async
            let result = try await downloader.downloadLivePhotoResource(with: url, options: .init(nil))
            XCTAssertEqual(result.originalData, mov)
            XCTAssertEqual(result.url, url)
            // callback
            let called: Result<LivePhotoResourceDownloadingResult, KingfisherError> =
                await withSanitizedCheckedContinuation {
                    continuation in
                    downloader.downloadLivePhotoResource(with: url, options: .init(nil)) {
                        continuation.resume(returning: $0)
                    }
                }
            XCTAssertEqual(try called.get().originalData, mov)
        }
    }

    // MARK: - The manager

    func testBothFilesAreDownloadedCachedWithTheirExtensionsAndHandedBackAsFileURLs() async throws {
        try await withManager { f in
            // Given a HEIC and a MOV on the server
            f.server.route("/photo.heic", .ok(heic, contentType: "image/heic"))
            f.server.route("/photo.mov", .ok(mov, contentType: "video/quicktime"))
            let source = LivePhotoSource(urls: [f.server.url("/photo.heic"), f.server.url("/photo.mov")])
            // When the Live Photo is retrieved
            let result = try await f.manager.retrieveLivePhoto(with: source)
            // Then both were downloaded and are cache files with their type's extension, in the source's order
            XCTAssertEqual(result.cacheType, .none)
            XCTAssertEqual(result.fileURLs.map(\.pathExtension), ["heic", "mov"])
            XCTAssertTrue(result.fileURLs.allSatisfy(\.isFileURL))
            XCTAssertTrue(
                result.fileURLs.allSatisfy { $0.deletingLastPathComponent() == f.cache.diskStorage.directoryURL })
            XCTAssertEqual(result.fileURLs.map { FileManager.default.contents(atPath: $0.path) }, [heic, mov])
            XCTAssertEqual(result.data(), [heic, mov])
            XCTAssertEqual(result.source.resources.count, 2)
            XCTAssertEqual(
                result.originalSource.resources.map(\.dataSource.cacheKey), source.resources.map(\.dataSource.cacheKey))
            // And they are under their keys in the disk cache
            let key = f.server.url("/photo.mov").cacheKey
            XCTAssertNotNil(
                f.cache.cacheFileURLIfOnDisk(
                    forKey: key, processorIdentifier: "com.onevcat.Kingfisher.LivePhotoImageProcessor",
                    forcedExtension: "mov"))
        }
    }

    func testASecondRetrievalIsADiskHitThatDownloadsNothing() async throws {
        try await withManager { f in
            f.server.route("/photo.heic", .ok(heic, contentType: "image/heic"))
            f.server.route("/photo.mov", .ok(mov, contentType: "video/quicktime"))
            let source = LivePhotoSource(urls: [f.server.url("/photo.heic"), f.server.url("/photo.mov")])
            let first = try await f.manager.retrieveLivePhoto(with: source)
            // When it is retrieved again
            let second = try await f.manager.retrieveLivePhoto(with: source)
            // Then nothing is downloaded: the same files come from disk, and their bytes are read from them
            XCTAssertEqual(second.cacheType, .disk)
            XCTAssertEqual(second.fileURLs, first.fileURLs)
            XCTAssertEqual(f.server.hits("/photo.heic"), 1)
            XCTAssertEqual(f.server.hits("/photo.mov"), 1)
            XCTAssertEqual(second.data(), [heic, mov])
            // With `.forceRefresh` both are downloaded again
            let refreshed = try await f.manager.retrieveLivePhoto(with: source, options: [.forceRefresh])
            XCTAssertEqual(refreshed.cacheType, .none)
            XCTAssertEqual(f.server.hits("/photo.heic"), 2)
            XCTAssertEqual(f.server.hits("/photo.mov"), 2)
        }
    }

    func testURLsWithoutAnExtensionAreStoredWithTheTypeTheirBytesShow() async throws {
        try await withManager { f in
            f.server.route("/still", .ok(heic))
            f.server.route("/motion", .ok(mov))
            let source = LivePhotoSource(urls: [f.server.url("/still"), f.server.url("/motion")])
            let result = try await f.manager.retrieveLivePhoto(with: source)
            XCTAssertEqual(result.fileURLs.map(\.pathExtension), ["heic", "mov"])
            let again = try await f.manager.retrieveLivePhoto(with: source)
            XCTAssertEqual(again.cacheType, .disk)
            XCTAssertEqual(f.server.hits("/still") + f.server.hits("/motion"), 2)
        }
    }

    func testBytesOfNoKnownTypeFromAURLWithoutExtensionAreAMissingResource() async throws {
        try await withManager { f in
            f.server.route("/still", .ok(heic))
            f.server.route("/mystery", .ok(Data("not a media file".utf8)))
            let source = LivePhotoSource(urls: [f.server.url("/still"), f.server.url("/mystery")])
            do {
                _ = try await f.manager.retrieveLivePhoto(with: source)
                XCTFail("expected missingLivePhotoResourceOnDisk")
            } catch let error as KingfisherError {
                guard case .cacheError(reason: .missingLivePhotoResourceOnDisk(let resource)) = error else {
                    return XCTFail("unexpected \(error)")
                }
                XCTAssertEqual(resource.dataSource.cacheKey, f.server.url("/mystery").cacheKey)
                XCTAssertEqual(error.errorCode, 3012)
            }
        }
    }

    func testAFailedDownloadIsThrown() async throws {
        try await withManager { f in
            f.server.route("/photo.heic", .ok(heic))
            f.server.route("/photo.mov", .status(404))
            let source = LivePhotoSource(urls: [f.server.url("/photo.heic"), f.server.url("/photo.mov")])
            do {
                _ = try await f.manager.retrieveLivePhoto(with: source)
                XCTFail("expected a response error")
            } catch let error as KingfisherError {
                XCTAssertTrue(error.isInvalidResponseStatusCode(404), "\(error)")
            }
        }
    }

    func testAProviderResourceIsReadAndCached() async throws {
        try await withManager { f in
            f.server.route("/photo.heic", .ok(heic))
            let video = LivePhotoResource(
                source: .provider(RawImageDataProvider(data: mov, cacheKey: "local-video")), fileType: .mov)
            let source = LivePhotoSource([LivePhotoResource(downloadURL: f.server.url("/photo.heic")), video])
            let result = try await f.manager.retrieveLivePhoto(with: source)
            XCTAssertEqual(result.fileURLs.map(\.pathExtension), ["heic", "mov"])
            XCTAssertEqual(FileManager.default.contents(atPath: result.fileURLs[1].path), mov)
        }
    }

    func testProgressSumsTheDownloadsAndHonoursTheChecker() async throws {
        try await withManager { f in
            f.server.route("/photo.heic", .ok(heic))
            f.server.route("/photo.mov", .ok(mov))
            let source = LivePhotoSource(urls: [f.server.url("/photo.heic"), f.server.url("/photo.mov")])
            let reports = Locked<[(Int64, Int64)]>([])
            _ = try await f.manager.retrieveLivePhoto(with: source) { received, total in
                reports.withLock { $0.append((received, total)) }
            }
            let all = reports.withLock { $0 }
            let total = Int64(heic.count + mov.count)
            XCTAssertEqual(all.map(\.0).max(), total)
            XCTAssertTrue(all.contains { $0 == (total, total) })
            // A checker saying the task is no longer current silences the reports
            let silenced = Locked(0)
            _ = try await f.manager.retrieveLivePhoto(
                with: source, options: [.forceRefresh], progressBlock: { _, _ in silenced.withLock { $0 += 1 } },
                referenceTaskIdentifierChecker: { false })
            XCTAssertEqual(silenced.withLock { $0 }, 0)
        }
    }

    func testCancellingTheCallingTaskThrowsLivePhotoTaskCancelled() async throws {
        try await withManager { f in
            // Given a video whose response is held by the server
            f.server.route("/photo.heic", .ok(heic))
            f.server.route("/photo.mov", TestHTTPServer.Route(body: mov, held: true))
            let source = LivePhotoSource(urls: [f.server.url("/photo.heic"), f.server.url("/photo.mov")])
            let manager = f.manager
            let task = Task { try await manager.retrieveLivePhoto(with: source) }
            await f.server.waitForRequests("/photo.mov")
            // When the calling task is cancelled
            task.cancel()
            // Then the retrieval throws Kingfisher's Live Photo cancellation (1004) for the source
            do {
                _ = try await task.value
                XCTFail("expected livePhotoTaskCancelled")
            } catch let error as KingfisherError {
                guard case .requestError(reason: .livePhotoTaskCancelled(let cancelled)) = error else {
                    return XCTFail("unexpected \(error)")
                }
                XCTAssertEqual(cancelled.resources.count, 2)
                XCTAssertEqual(error.errorCode, 1004)
            }
            f.server.release("/photo.mov")
        }
    }

    func testAnEmptySourceIsAnError() async throws {
        try await withManager { f in
            do {
                _ = try await f.manager.retrieveLivePhoto(with: LivePhotoSource([]))
                XCTFail("expected emptySource")
            } catch let error as KingfisherError {
                guard case .imageSettingError(reason: .emptySource) = error else {
                    return XCTFail("unexpected \(error)")
                }
            }
        }
    }
}
