import Foundation
import Kingfisher
import KingfisherLocking
import KingfisherTestSupport
import Logging
import Testing

/// A serializer that stores the bytes as downloaded (`preferCacheOriginalData`).
private let keepsOriginal: DefaultCacheSerializer = {
    var serializer = DefaultCacheSerializer()
    serializer.preferCacheOriginalData = true
    return serializer
}()

/// An object for `Delegate.delegate(on:)` to hold weakly.
private final class PreviewOwner: Sendable {}

/// A JPEG whose header is whole and whose compressed data stops 20 bytes into its first scan: its header reads,
/// its decode fails. What a prefetch stores of it shows whether the prefetch decoded it.
private func jpegCutAfterItsHeader() throws -> Data {
    let jpeg = Fixtures.jpeg(width: 64, height: 48)
    let bytes = [UInt8](jpeg)
    let scan = try #require((0..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
    return jpeg.prefix(scan + 20)
}

@Suite(.timeLimit(.minutes(1)))
struct ImagePrefetcherOriginalDataTests {
    private func prefetch(
        _ sources: [Source], options: KingfisherOptionsInfo, manager: KingfisherManager
    ) async -> PrefetchRecorder.Lists? {
        let recorder = PrefetchRecorder()
        ImagePrefetcher(sources: sources, options: options, completionHandler: recorder.completion, manager: manager)
            .start()
        await recorder.waitForCompletion()
        return recorder.completions.first
    }

    @Test func originalBytesAreStoredUndecodedAndALaterRetrievalIsADiskHit() async throws {
        try await withManager { f in
            // Given a photo and a JPEG that only a decode finds broken
            let photo = Fixtures.jpeg(width: 64, height: 48)
            let cut = try jpegCutAfterItsHeader()
            f.server.route("/photo.jpg", .ok(photo))
            f.server.route("/cut.jpg", .ok(cut))
            let photoURL = f.server.url("/photo.jpg")
            let cutURL = f.server.url("/cut.jpg")
            // When both are prefetched with a serializer that keeps original data
            let final = try #require(
                await prefetch(
                    [.network(photoURL), .network(cutURL)], options: [.cacheSerializer(keepsOriginal)],
                    manager: f.manager))
            // Then both are stored byte for byte under their plain keys, on disk only: the cut one was not decoded
            // (its decode fails), and nothing went to memory
            #expect(Set(final.completed.map(\.cacheKey)) == [photoURL.cacheKey, cutURL.cacheKey])
            #expect(try f.cache.diskStorage.value(forKey: photoURL.cacheKey, forcedExtension: nil) == photo)
            #expect(try f.cache.diskStorage.value(forKey: cutURL.cacheKey, forcedExtension: nil) == cut)
            #expect(f.cache.imageCachedType(forKey: photoURL.cacheKey) == .disk)
            // And a later retrieval with the same options decodes the photo from disk without downloading again
            let result = try await f.manager.retrieveImage(with: photoURL, options: [.cacheSerializer(keepsOriginal)])
            #expect(result.cacheType == .disk)
            #expect(result.image.pixelWidth == 64 && result.image.pixelHeight == 48)
            #expect(f.server.hits("/photo.jpg") == 1)
        }
    }

    @Test func withoutOriginalDataKingfishersDecodingPrefetchRemains() async throws {
        try await withManager { f in
            f.server.route("/photo.jpg", .ok(Fixtures.jpeg()))
            f.server.route("/cut.jpg", .ok(try jpegCutAfterItsHeader()))
            let photoURL = f.server.url("/photo.jpg")
            let cutURL = f.server.url("/cut.jpg")
            // Given the default serializer, and original data with memory prefetch
            let plain = try #require(
                await prefetch([.network(photoURL), .network(cutURL)], options: [], manager: f.manager))
            f.cache.clearMemoryCache()
            await f.cache.clearDiskCache()
            let toMemory = try #require(
                await prefetch(
                    [.network(photoURL), .network(cutURL)],
                    options: [.cacheSerializer(keepsOriginal), .alsoPrefetchToMemory], manager: f.manager))
            #expect(f.cache.imageCachedType(forKey: photoURL.cacheKey) == .memory)
            // and original data with a processor
            let thumbnail = DownsamplingImageProcessor(size: CGSize(width: 16, height: 16))
            let processed = try #require(
                await prefetch(
                    [.network(photoURL), .network(cutURL)],
                    options: [.cacheSerializer(keepsOriginal), .processor(thumbnail)], manager: f.manager))
            // Then each decodes as Kingfisher does: the cut JPEG fails, the photo is kept in memory too
            for final in [plain, toMemory, processed] {
                #expect(final.completed.map(\.cacheKey) == [photoURL.cacheKey])
                #expect(final.failed.map(\.cacheKey) == [cutURL.cacheKey])
            }
            #expect(
                f.cache.imageCachedType(forKey: photoURL.cacheKey, processorIdentifier: thumbnail.identifier) == .memory
            )
            #expect(!f.cache.isCached(forKey: cutURL.cacheKey))
            #expect(!f.cache.isCached(forKey: cutURL.cacheKey, processorIdentifier: thumbnail.identifier))
        }
    }

    @Test func bytesThatFailTheHeaderCheckAreNotStoredAndTheLoggerSaysWhy() async throws {
        try await withManager { f in
            let log = RecordingLog()
            f.cache.logger = log.logger
            // Given a web page, an empty body, a decompression bomb's header and one good image
            f.server.route("/page.jpg", .ok(Data("<html>not found</html>".utf8)))
            f.server.route("/empty.jpg", .ok(Data()))
            f.server.route("/bomb.png", .ok(Fixtures.pngHeaderOnly(width: 100_000, height: 100_000)))
            f.server.route("/good.png", .ok(Fixtures.png()))
            let paths = ["/page.jpg", "/empty.jpg", "/bomb.png", "/good.png"]
            let sources: [Source] = paths.map { .network(f.server.url($0)) }
            // When they are prefetched keeping original data
            let final = try #require(
                await prefetch(sources, options: [.cacheSerializer(keepsOriginal)], manager: f.manager))
            // Then only the good one is stored; each other one failed, with a warning naming its key and reason
            #expect(final.completed.map(\.cacheKey) == [sources[3].cacheKey])
            #expect(Set(final.failed.map(\.cacheKey)) == Set(sources.prefix(3).map(\.cacheKey)))
            #expect(cacheFiles(in: f.cache.diskStorage.directoryURL).count == 1)
            let reasons = Dictionary(
                log.entries.filter { $0.level == .warning }.map {
                    ($0.metadata["kf.key"] ?? "", $0.metadata["kf.error"] ?? "")
                },
                uniquingKeysWith: { first, _ in first })
            #expect(reasons[sources[0].cacheKey]?.contains("not in an image format") == true)
            #expect(reasons[sources[1].cacheKey]?.contains("empty") == true)
            #expect(reasons[sources[2].cacheKey]?.contains("100000 x 100000 pixels, over the limit") == true)
            #expect(f.server.totalHits == 4)
        }
    }

    @Test func aProviderSourcesBytesAreStoredUndecoded() async throws {
        try await withManager { f in
            // Given a local file holding a JPEG that only a decode finds broken, and one that is not an image
            let cut = try jpegCutAfterItsHeader()
            let file = f.directory.appendingPathComponent("cut.jpg")
            let notImage = f.directory.appendingPathComponent("notes.jpg")
            try cut.write(to: file)
            try garbageBytes.write(to: notImage)
            let sources: [Source] = [file, notImage].map { .provider(LocalFileImageDataProvider(fileURL: $0)) }
            // When they are prefetched keeping original data
            let final = try #require(
                await prefetch(sources, options: [.cacheSerializer(keepsOriginal)], manager: f.manager))
            // Then the file's bytes are stored as they are under its key, and the other one is refused
            #expect(final.completed.map(\.cacheKey) == [sources[0].cacheKey])
            #expect(final.failed.map(\.cacheKey) == [sources[1].cacheKey])
            #expect(try f.cache.diskStorage.value(forKey: sources[0].cacheKey, forcedExtension: nil) == cut)
            #expect(!f.cache.isCached(forKey: sources[1].cacheKey))
        }
    }

    @Test func progressivePreviewsAreNotDecodedWhenOriginalDataIsStored() async throws {
        try await withManager { f in
            // Given a progressive JPEG sent in paced pieces, so its scans arrive one after another; the first copy
            // holds its last third until a preview of the scans before it was shown
            let photo = Fixtures.texturedJPEG(width: 320, height: 240)
            var paced = TestHTTPServer.Route(
                body: photo, chunkSize: 1024, delayBetweenChunks: .milliseconds(10), contentLength: Int64(photo.count))
            f.server.route("/kept.jpg", paced)
            paced.holdAfterBodyBytes = photo.count * 2 / 3
            f.server.route("/decoded.jpg", paced)
            let previews = Locked<[String: Int]>([:])
            let owner = PreviewOwner()
            func progressive(_ name: String) -> ImageProgressive {
                let progressive = ImageProgressive()
                progressive.onImageUpdated.delegate(on: owner) { _, _ in
                    previews.withLock { $0[name, default: 0] += 1 }
                    return .default
                }
                return progressive
            }
            // When it is prefetched with previews asked for, decoded, then keeping original data
            let decoding = Task {
                await prefetch(
                    [.network(f.server.url("/decoded.jpg"))], options: [.progressiveJPEG(progressive("decoded"))],
                    manager: f.manager)
            }
            #expect(await eventually(timeout: 60) { previews.withLock { $0["decoded"] ?? 0 } > 0 })
            f.server.release("/decoded.jpg")
            let decoded = await decoding.value
            let kept = await prefetch(
                [.network(f.server.url("/kept.jpg"))],
                options: [.cacheSerializer(keepsOriginal), .progressiveJPEG(progressive("kept"))], manager: f.manager)
            // Then both are stored, but only the decoding prefetch decoded previews
            #expect(decoded?.completed.count == 1)
            #expect(kept?.completed.count == 1)
            #expect(previews.withLock { $0["decoded"] ?? 0 } > 0)
            #expect(previews.withLock { $0["kept"] } == nil)
            let stored = try f.cache.diskStorage.value(
                forKey: f.server.url("/kept.jpg").cacheKey, forcedExtension: nil)
            #expect(stored == photo)
            withExtendedLifetime(owner) {}
        }
    }

    @Test func stopCancelsOriginalDataDownloadsAndStoresNothing() async throws {
        try await withManager { f in
            f.server.route("/held.png", .init(body: Fixtures.png(), held: true))
            let recorder = PrefetchRecorder()
            let prefetcher = ImagePrefetcher(
                sources: [.network(f.server.url("/held.png"))], options: [.cacheSerializer(keepsOriginal)],
                completionHandler: recorder.completion, manager: f.manager)
            prefetcher.start()
            await f.server.waitForRequests("/held.png")
            // When the prefetcher stops while the body is held back
            prefetcher.stop()
            await recorder.waitForCompletion()
            f.server.release("/held.png")
            // Then the source failed and nothing was written
            #expect(recorder.completions.first?.failed.count == 1)
            _ = try await f.cache.calculateDiskStorageSize()
            #expect(cacheFiles(in: f.cache.diskStorage.directoryURL).isEmpty)
        }
    }
}
