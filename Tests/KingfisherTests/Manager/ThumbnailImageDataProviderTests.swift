import Foundation
import Kingfisher
import KingfisherTestSupport
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
            #expect(provider.cacheKey == "\(file.cacheKey)@thumbnail(100.0)")
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

    @Test func nonFileURLsAndMissingFilesFailWithTheProvidersError() async throws {
        try await withTemporaryDirectory { directory in
            let remote = ThumbnailImageDataProvider(url: URL(string: "https://example.com/a.png")!, maxPixelSize: 10)
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
}
