import Foundation
import Kingfisher
import KingfisherLocking
import Testing

@Suite struct ImageSourceTests {
    @Test func urlsAndResourcesHaveCacheKeys() throws {
        let url = try #require(URL(string: "https://example.com/a.png?size=2"))
        #expect(url.cacheKey == "https://example.com/a.png?size=2")
        #expect(url.downloadURL == url)
        #expect(KF.ImageResource(downloadURL: url).cacheKey == url.absoluteString)
        #expect(ImageResource(downloadURL: url, cacheKey: "custom").cacheKey == "custom")
        // File URLs get a stable key from their standardised path
        let file = URL(fileURLWithPath: "/tmp/x/../images/b.png")
        #expect(file.cacheKey == "kingfisher.local.cacheKey/tmp/images/b.png")
    }

    @Test func convertToSourcePicksNetworkOrFile() throws {
        let remote = try #require(URL(string: "https://example.com/a.png"))
        guard case .network(let resource) = remote.convertToSource() else {
            Issue.record("expected a network source")
            return
        }
        #expect(resource.downloadURL == remote)
        let overridden = remote.convertToSource(overrideCacheKey: "k")
        #expect(overridden.cacheKey == "k" && overridden.url == remote)

        let file = URL(fileURLWithPath: "/tmp/c.png")
        guard case .provider(let provider) = file.convertToSource() else {
            Issue.record("expected a provider source")
            return
        }
        #expect(provider is LocalFileImageDataProvider)
        #expect(provider.contentURL == file)
        #expect(provider.cacheKey == file.cacheKey)
        #expect(Source.provider(provider).url == file)
        #expect(Source.provider(provider).asResource == nil)
    }

    @Test func localFileProviderReadsTheFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("image.png")
        let bytes = Fixtures.png(width: 5, height: 5)
        try bytes.write(to: file)

        let provider = LocalFileImageDataProvider(fileURL: file)
        #expect(try await provider.data() == bytes)
        // The callback form bridges to the async one
        let viaHandler = await withSanitizedCheckedContinuation { continuation in
            provider.data { continuation.resume(returning: $0) }
        }
        #expect(try viaHandler.get() == bytes)
    }

    @Test func localFileProviderFailsClearlyForMissingFilesAndDirectories() async throws {
        let missing = LocalFileImageDataProvider(fileURL: URL(fileURLWithPath: "/nonexistent/\(UUID().uuidString).png"))
        let directory = LocalFileImageDataProvider(fileURL: FileManager.default.temporaryDirectory)
        for provider in [missing, directory] {
            do {
                _ = try await provider.data()
                Issue.record("read \(provider.fileURL)")
            } catch let error as KingfisherError {
                #expect(error.errorCode == 5003)
                #expect(error.description.contains(provider.cacheKey))
            }
        }
    }

    @Test func base64Provider() async throws {
        let bytes = Fixtures.png(width: 3, height: 3)
        let text = bytes.base64EncodedString(options: .lineLength64Characters)
        #expect(try await Base64ImageDataProvider(base64String: text, cacheKey: "b").data() == bytes)
        await #expect(throws: KingfisherError.self) {
            try await Base64ImageDataProvider(base64String: "!!!not base64", cacheKey: "b").data()
        }
        await #expect(throws: KingfisherError.self) {
            try await Base64ImageDataProvider(base64String: "", cacheKey: "b").data()
        }
    }

    @Test func rawProvider() async throws {
        let bytes = Data([1, 2, 3])
        let provider = RawImageDataProvider(data: bytes, cacheKey: "raw")
        #expect(try await provider.data() == bytes)
        #expect(provider.contentURL == nil && Source.provider(provider).cacheKey == "raw")
    }
}
