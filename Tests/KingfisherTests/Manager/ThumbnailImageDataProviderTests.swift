import Foundation
import Kingfisher
import KingfisherTestSupport
import KingfisherLocking
import Testing

@Suite(.timeLimit(.minutes(1)))
struct ThumbnailImageDataProviderTests {
    @Test(arguments: [ImageFormat.PNG, .JPEG])
    func makesASmallerImageInTheFilesFormat(format: ImageFormat) async throws {
        try await withManager { f in
            // Given a 400 x 200 image file
            let file = f.directory.appendingPathComponent("big.\(format)")
            let full = format == .PNG ? Fixtures.png(width: 400, height: 200) : Fixtures.jpeg(width: 400, height: 200)
            try full.write(to: file)
            let provider = ThumbnailImageDataProvider(url: file, maxPixelSize: 100)
            // When its thumbnail is retrieved
            let data = try await provider.data()
            let result = try await f.manager.retrieveImage(with: .provider(provider), options: [.waitForCache])
            // Then it fits in 100 pixels, keeps the format, and is cached under the thumbnail's key
            #expect(data.kf.imageFormat == format)
            #expect(data.count < full.count)
            #expect(result.image.kf.size == CGSize(width: 100, height: 50))
            #expect(provider.cacheKey == "\(file.absoluteString)_thumb_100.0_true")
            #expect(f.cache.isCached(forKey: provider.cacheKey))
        }
    }

    @Test func smallImagesAreNotEnlarged() async throws {
        try await withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("small.png")
            try Fixtures.png(width: 40, height: 20).write(to: file)
            let data = try await ThumbnailImageDataProvider(url: file, maxPixelSize: 100).data()
            let image = try #require(KingfisherWrapper<KFCrossPlatformImage>.image(data: data, options: .init()))
            #expect(image.kf.size == CGSize(width: 40, height: 20))
        }
    }

    @Test func otherSchemesAndMissingFilesFailWithTheProvidersError() async throws {
        await withTemporaryDirectory { directory in
            let remote = ThumbnailImageDataProvider(url: URL(string: "ftp://example.com/a.png")!, maxPixelSize: 10)
            await #expect {
                try await remote.data()
            } throws: { error in
                guard
                    case .imageSettingError(reason: .dataProviderError(let provider, let cause)) = error
                        as? KingfisherError
                else { return false }
                return provider.cacheKey == remote.cacheKey && cause is ThumbnailSourceError
            }
            let missing = ThumbnailImageDataProvider(
                url: directory.appendingPathComponent("none.png"), maxPixelSize: 10)
            await #expect {
                try await missing.data()
            } throws: { error in
                guard case .imageSettingError(reason: .dataProviderError(let provider, _)) = error as? KingfisherError
                else { return false }
                return provider is ThumbnailImageDataProvider
            }
        }
    }

    @Test func dataThatIsNotAnImageFails() async throws {
        try await withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("junk.png")
            try garbageBytes.write(to: file)
            await #expect(throws: KingfisherError.self) {
                try await ThumbnailImageDataProvider(url: file, maxPixelSize: 10).data()
            }
        }
    }

    @Test("Kingfisher's ThumbnailImageDataProviderError says why the bytes gave no thumbnail")
    func kingfishersThumbnailErrors() async throws {
        try await withTemporaryDirectory { directory in
            func cause(of file: URL) async -> ThumbnailImageDataProvider.ThumbnailImageDataProviderError? {
                do {
                    _ = try await ThumbnailImageDataProvider(url: file, maxPixelSize: 10).data()
                    return nil
                } catch {
                    guard case .imageSettingError(reason: .dataProviderError(_, let cause)) = error as? KingfisherError
                    else { return nil }
                    return cause as? ThumbnailImageDataProvider.ThumbnailImageDataProviderError
                }
            }
            let junk = directory.appendingPathComponent("junk.png")
            try garbageBytes.write(to: junk)
            #expect(await cause(of: junk) == .invalidImageSource)
            // A JPEG cut in the middle of its scan data: recognised, but it does not decode
            let jpeg = Fixtures.jpeg(width: 200, height: 150)
            let cut = directory.appendingPathComponent("cut.jpg")
            try jpeg.prefix(jpeg.count / 2).write(to: cut)
            #expect(await cause(of: cut) == .invalidThumbnail)
        }
    }

    // MARK: http(s)

    @Test func downloadsAndShrinksAnHTTPImageOnce() async throws {
        try await withManager { f in
            // Given a 400 x 200 JPEG on the server
            let full = Fixtures.jpeg(width: 400, height: 200)
            f.server.route("/big.jpg", .ok(full, contentType: "image/jpeg"))
            let url = f.server.url("/big.jpg")
            let provider = ThumbnailImageDataProvider(url: url, maxPixelSize: 100, downloader: f.downloader)
            // When its thumbnail is retrieved twice through the manager
            let first = try await f.manager.retrieveImage(with: .provider(provider), options: [.waitForCache])
            f.cache.clearMemoryCache()
            let second = try await f.manager.retrieveImage(with: .provider(provider))
            // Then it was downloaded once, shrunk to fit 100 pixels as a JPEG, and then served from the disk cache
            #expect(f.server.hits("/big.jpg") == 1)
            #expect(first.cacheType == .none)
            #expect(first.image.kf.size == CGSize(width: 100, height: 50))
            #expect(second.cacheType == .disk)
            #expect(provider.cacheKey == "\(url.absoluteString)_thumb_100.0_true")
            let data = try #require(first.data())
            #expect(data.kf.imageFormat == .JPEG)
            #expect(data.count < full.count)
        }
    }

    @Test func alwaysCreateThumbnailFalseHandsOverImagesThatAlreadyFit() async throws {
        try await withManager { f in
            // Given a small JPEG and a large one on the server
            let small = Fixtures.jpeg(width: 40, height: 20)
            f.server.route("/small.jpg", .ok(small))
            f.server.route("/big.jpg", .ok(Fixtures.jpeg(width: 400, height: 200)))
            let smallURL = f.server.url("/small.jpg")
            // When thumbnails of at most 100 pixels are made with and without alwaysCreateThumbnail
            let kept = try await ThumbnailImageDataProvider(
                url: smallURL, maxPixelSize: 100, alwaysCreateThumbnail: false, downloader: f.downloader
            ).data()
            let remade = try await ThumbnailImageDataProvider(
                url: smallURL, maxPixelSize: 100, alwaysCreateThumbnail: true, downloader: f.downloader
            ).data()
            let shrunk = try await ThumbnailImageDataProvider(
                url: f.server.url("/big.jpg"), maxPixelSize: 100, alwaysCreateThumbnail: false,
                downloader: f.downloader
            ).data()
            // Then without it a fitting image's bytes come back unchanged; with it they are encoded again; a large
            // image is shrunk either way
            #expect(kept == small)
            #expect(remade != small)
            let remadeImage = try #require(
                KingfisherWrapper<KFCrossPlatformImage>.image(data: remade, options: .init()))
            #expect(remadeImage.kf.size == CGSize(width: 40, height: 20))
            let shrunkImage = try #require(
                KingfisherWrapper<KFCrossPlatformImage>.image(data: shrunk, options: .init()))
            #expect(shrunkImage.kf.size == CGSize(width: 100, height: 50))
            // And the two settings are cached apart
            #expect(
                ThumbnailImageDataProvider(url: smallURL, maxPixelSize: 100, alwaysCreateThumbnail: false).cacheKey
                    != ThumbnailImageDataProvider(url: smallURL, maxPixelSize: 100).cacheKey)
        }
    }

    @Test func anHTTPErrorIsTheProvidersErrorWithTheStatusInside() async throws {
        try await withManager { f in
            f.server.route("/missing.jpg", .status(404))
            let provider = ThumbnailImageDataProvider(
                url: f.server.url("/missing.jpg"), maxPixelSize: 100, downloader: f.downloader)
            let result = await f.manager.callbackResult(.provider(provider))
            guard case .imageSettingError(reason: .dataProviderError(_, let cause)) = result.failure else {
                Issue.record("expected dataProviderError, got \(result)")
                return
            }
            #expect((cause as? KingfisherError)?.isInvalidResponseStatusCode(404) == true)
            #expect(f.server.hits("/missing.jpg") == 1)
            #expect(!f.cache.isCached(forKey: provider.cacheKey))
        }
    }

    @Test func aNonImageBodyFailsWithoutCaching() async throws {
        try await withManager { f in
            f.server.route("/junk.jpg", .ok(garbageBytes))
            let provider = ThumbnailImageDataProvider(
                url: f.server.url("/junk.jpg"), maxPixelSize: 100, downloader: f.downloader)
            await #expect(throws: KingfisherError.self) {
                try await f.manager.retrieveImage(with: .provider(provider), options: [.waitForCache])
            }
            #expect(!f.cache.isCached(forKey: provider.cacheKey))
        }
    }

    @Test func cancellingTheRetrievalCancelsTheThumbnailsDownload() async throws {
        try await withManager { f in
            // Given a thumbnail of a slow http image being retrieved
            // (a byte every half second: only a cancel can end the download within the suite's time limit)
            let body = Fixtures.jpeg()
            #expect(body.count > 200)
            f.server.route(
                "/slow.jpg", TestHTTPServer.Route(body: body, chunkSize: 1, delayBetweenChunks: .milliseconds(500)))
            let delegate = RecordingDelegate()
            f.downloader.delegate = delegate
            let provider = ThumbnailImageDataProvider(
                url: f.server.url("/slow.jpg"), maxPixelSize: 16, downloader: f.downloader)
            let collector = RetrievalCollector()
            let task = f.manager.retrieveImage(
                with: .provider(provider), options: [.waitForCache], completionHandler: collector.handler)
            await f.server.waitForRequests("/slow.jpg")
            // When the retrieval is cancelled
            task?.cancel()
            // Then the download ends with an error before the server answers, and the caller hears one cancellation
            await delegate.finished.wait(for: 1)
            #expect(delegate.calls.withLock { $0.didFinish.map(\.failed) } == [true])
            await collector.wait(for: 1)
            #expect(collector.results.count == 1)
            #expect(collector.results.first?.failure?.isTaskCancelled == true)
            #expect(!f.cache.isCached(forKey: provider.cacheKey))
        }
    }
}
