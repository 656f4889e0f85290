import Foundation
import Kingfisher
import KingfisherTestSupport
import Testing

@Suite(.timeLimit(.minutes(1)))
struct KingfisherManagerProviderTests {
    @Test func providerDataIsProcessedAndCachedUnderTheProvidersKey() async throws {
        try await withManager { f in
            // Given a provider of PNG bytes
            let png = Fixtures.png(width: 64, height: 48)
            let provider = CountingProvider(cacheKey: "provided-1", bytes: png)
            let processor = ResizingImageProcessor(referenceSize: CGSize(width: 16, height: 12))
            // When it is retrieved with a processor
            let first = try await f.manager.retrieveImage(
                with: .provider(provider), options: [.processor(processor), .waitForCache])
            // Then its data was processed and cached under provider.cacheKey@processor, without the network
            #expect(first.cacheType == .none)
            #expect(first.image.kf.size == CGSize(width: 16, height: 12))
            #expect(first.data() == png)
            #expect(first.metrics == nil)
            #expect(f.cache.imageCachedType(forKey: "provided-1", processorIdentifier: processor.identifier) == .memory)
            #expect(f.cache.diskStorage.isCached(forKey: "provided-1@\(processor.identifier)"))
            #expect(f.server.totalHits == 0)
            // And the next retrievals do not ask the provider again
            _ = try await f.manager.retrieveImage(with: .provider(provider), options: [.processor(processor)])
            f.cache.clearMemoryCache()
            let fromDisk = try await f.manager.retrieveImage(
                with: .provider(provider), options: [.processor(processor)])
            #expect(fromDisk.cacheType == .disk)
            #expect(provider.callCount == 1)
        }
    }

    @Test func fileURLResourcesAreReadFromDisk() async throws {
        try await withManager { f in
            let file = f.directory.appendingPathComponent("local.png")
            try Fixtures.png(width: 20, height: 10).write(to: file)
            let result = try await f.manager.retrieveImage(with: file, options: [.waitForCache])
            #expect(result.image.kf.size == CGSize(width: 20, height: 10))
            #expect(f.cache.isCached(forKey: file.cacheKey))
            #expect(f.server.totalHits == 0)
        }
    }

    @Test func providerErrorsBecomeDataProviderErrors() async throws {
        try await withManager { f in
            let result = await f.manager.callbackResult(
                .provider(FailingProvider(cacheKey: "failing")), options: [.waitForCache])
            guard case .imageSettingError(reason: .dataProviderError(let provider, let error)) = result.failure else {
                Issue.record("expected dataProviderError, got \(result)")
                return
            }
            #expect(provider.cacheKey == "failing")
            #expect(error is FailingProvider.Failure)
            #expect(!f.cache.isCached(forKey: "failing"))
        }
    }

    @Test func providerKingfisherErrorsAreNotWrappedTwice() async throws {
        try await withManager { f in
            let provider = Base64ImageDataProvider(base64String: "!!!", cacheKey: "bad-base64")
            let result = await f.manager.callbackResult(.provider(provider))
            guard case .imageSettingError(reason: .dataProviderError(_, let error)) = result.failure else {
                Issue.record("expected dataProviderError, got \(result)")
                return
            }
            #expect(error is Base64DecodingError)
        }
    }

    @Test func providerDataThatIsNotAnImageFailsWithoutCaching() async throws {
        try await withManager { f in
            let provider = RawImageDataProvider(data: garbageBytes, cacheKey: "garbage")
            let result = await f.manager.callbackResult(.provider(provider), options: [.waitForCache])
            // As in Kingfisher: the processor failed on the data; the decoder's reason stays reachable
            guard case .processorError(reason: .processingFailed(_, .data(let data))) = result.failure else {
                Issue.record("expected processingFailed, got \(result)")
                return
            }
            #expect(data == garbageBytes)
            guard case .unsupportedImageFormat(.unknown)? = result.failure?.underlyingReason else {
                Issue.record("expected the underlying unsupportedImageFormat, got \(result)")
                return
            }
            #expect(!f.cache.isCached(forKey: "garbage"))
        }
    }
}
