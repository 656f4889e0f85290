import Foundation
import Kingfisher
import KingfisherTestSupport
import Testing

/// `s3://bucket/key` URLs fetched from a real S3-compatible server (moto's, started by the tests, checking every
/// signature): objects, keys that need encoding, missing keys and buckets, a wrong secret, ranged resuming after a
/// dropped connection, revalidation with the object's `ETag`, and a slow endpoint.
@Suite struct S3SourceTests {
    /// A manager whose downloader fetches `s3://` URLs from the test server with `storage` (its own key by
    /// default), over a temp-dir cache, and a bucket of the test's own.
    private func withStore(
        storage: ((S3TestServer) -> S3Configuration)? = nil, timeout: TimeInterval? = nil, clock: TestClock? = nil,
        _ body: (S3TestServer, KingfisherManager, ImageCache, String) async throws -> Void
    ) async throws {
        let server = try await S3TestServer.shared()
        let bucket = "kf-\(UUID().uuidString.prefix(8).lowercased())"
        try await server.createBucket(bucket)
        try await withTemporaryDirectory { directory in
            let downloader = ImageDownloader(
                name: "s3", configuration: .init(objectStorage: storage?(server) ?? server.configuration))
            if let timeout { downloader.downloadTimeout = timeout }
            let cache = try makeCache(in: directory, clock: clock)
            let manager = KingfisherManager(downloader: downloader, cache: cache)
            do {
                try await body(server, manager, cache, bucket)
                _ = try? await cache.calculateDiskStorageSize()
                try await downloader.shutdown()
            } catch {
                try? await downloader.shutdown()
                throw error
            }
        }
    }

    private func objectStorageError(_ error: any Error) -> (status: Int, code: String)? {
        guard case .responseError(.objectStorageError(_, let status, let code, _)) = error as? KingfisherError else {
            return nil
        }
        return (status, code)
    }

    @Test func anObjectIsFetchedSignedAndCachedUnderItsS3URL() async throws {
        try await withStore { server, manager, cache, bucket in
            let png = Fixtures.png(width: 40, height: 30)
            try await server.put(png, bucket: bucket, key: "photos/one.png", contentType: "image/png")
            let url = try #require(URL(string: "s3://\(bucket)/photos/one.png"))
            let result = try await manager.retrieveImage(with: url, options: [.waitForCache])
            #expect(result.image.pixelWidth == 40 && result.image.pixelHeight == 30)
            #expect(result.cacheType == .none)
            #expect(result.data() == png)
            // The cache key is the s3:// URL, whatever the endpoint
            #expect(try cache.diskStorage.value(forKey: url.absoluteString) == png)
            let again = try await manager.retrieveImage(with: url)
            #expect(again.cacheType == .memory)
            let asked = try await server.requests().filter {
                $0.path == "/\(bucket)/photos/one.png" && $0.method != "PUT"
            }
            #expect(asked.map(\.method) == ["GET"])
        }
    }

    @Test func keysWithSpacesAndFoldersAreEncodedAsTheSignatureSaysTheyAre() async throws {
        try await withStore { server, manager, _, bucket in
            let jpeg = Fixtures.jpeg(width: 24, height: 16)
            try await server.put(jpeg, bucket: bucket, key: "summer 2026/day one/beach photo.jpg")
            let location = try #require(S3Location(bucket: bucket, key: "summer 2026/day one/beach photo.jpg"))
            #expect(location.url.absoluteString == "s3://\(bucket)/summer%202026/day%20one/beach%20photo.jpg")
            #expect(S3Location(url: location.url) == location)
            let result = try await manager.retrieveImage(with: location.url)
            #expect(result.image.pixelWidth == 24)
        }
    }

    @Test func aMissingKeyOrBucketIsTheStoresErrorWithItsCode() async throws {
        try await withStore { _, manager, cache, bucket in
            let missing = try #require(URL(string: "s3://\(bucket)/no/such.png"))
            await #expect {
                try await manager.retrieveImage(with: missing)
            } throws: { error in
                let refusal = objectStorageError(error)
                return refusal?.status == 404 && refusal?.code == "NoSuchKey"
            }
            let noBucket = try #require(URL(string: "s3://kf-no-such-bucket-here/a.png"))
            await #expect {
                try await manager.retrieveImage(with: noBucket)
            } throws: { error in
                objectStorageError(error)?.code == "NoSuchBucket"
                    && (error as? KingfisherError)?.localizedDescription.contains("NoSuchBucket") == true
            }
            // Nothing was cached for either
            #expect(!cache.isCached(forKey: missing.absoluteString))
        }
    }

    @Test func aWrongSecretIsRefusedAsSignatureDoesNotMatch() async throws {
        let wrongSecret: (S3TestServer) -> S3Configuration = { $0.configuration(secret: "not-the-secret") }
        try await withStore(storage: wrongSecret) { server, manager, _, bucket in
            try await server.put(Fixtures.png(), bucket: bucket, key: "a.png")
            let url = try #require(URL(string: "s3://\(bucket)/a.png"))
            await #expect {
                try await manager.retrieveImage(with: url)
            } throws: { error in
                let refusal = objectStorageError(error)
                return refusal?.status == 403 && refusal?.code == "SignatureDoesNotMatch"
            }
        }
    }

    @Test func aDroppedConnectionIsResumedWithARangedGet() async throws {
        try await withStore { server, manager, _, bucket in
            manager.httpCachePolicy = .followsResponseHeaders
            let large = ResumableDownloadTests.first
            try await server.put(large, bucket: bucket, key: "large.png", contentType: "image/png")
            try await server.fault(path: "/\(bucket)/large.png", dropAfter: 2 << 20)
            let url = try #require(URL(string: "s3://\(bucket)/large.png"))
            let result = try await manager.retrieveImage(
                with: url,
                options: [
                    .retryStrategy(DelayRetryStrategy(maxRetryCount: 1, retryInterval: .seconds(0))), .waitForCache,
                ])
            #expect(result.data() == large)
            let asked = try await server.requests().filter { $0.path == "/\(bucket)/large.png" && $0.method != "PUT" }
            // The whole object cut off, then a ranged GET for the rest
            #expect(asked.count == 2)
            #expect(asked.first?.range == nil)
            let range = try #require(asked.last?.range)
            let start = try #require(Int(range.dropFirst(6).dropLast()))
            #expect(range.hasPrefix("bytes=") && start > 0 && start <= 2 << 20)
        }
    }

    @Test func aStaleEntryIsRevalidatedWithTheObjectsETag() async throws {
        let clock = TestClock()
        try await withStore(clock: clock) { server, manager, cache, bucket in
            manager.httpCachePolicy = .followsResponseHeaders
            try await server.put(Fixtures.png(width: 20, height: 20), bucket: bucket, key: "tag.png")
            let url = try #require(URL(string: "s3://\(bucket)/tag.png"))
            let first = try await manager.retrieveImage(with: url, options: [.waitForCache])
            #expect(first.validation == .fetched)
            // S3 sends no Cache-Control: an object's entry is fresh for a tenth of its age when fetched (RFC 9111's
            // heuristic), well under a minute here; after that it is revalidated, and the object has not changed
            cache.clearMemoryCache()
            clock.advance(by: 60)
            let second = try await manager.retrieveImage(with: url, options: [.waitForCache])
            #expect(second.validation == .revalidated && second.cacheType == .disk)
            #expect(second.image.pixelWidth == 20)
            // Replaced in the store (within the second the first was written): the next revalidation fetches it
            try await server.put(Fixtures.png(width: 30, height: 20), bucket: bucket, key: "tag.png")
            cache.clearMemoryCache()
            clock.advance(by: 60)
            let third = try await manager.retrieveImage(with: url, options: [.waitForCache])
            #expect(third.validation == .refetched && third.image.pixelWidth == 30)
        }
    }

    @Test func aSlowEndpointTimesOutAsAnyOriginDoes() async throws {
        try await withStore(timeout: 0.5) { server, manager, _, bucket in
            try await server.put(Fixtures.png(), bucket: bucket, key: "slow.png")
            // Far past the timeout, so that a late timer on a loaded machine still fires first.
            try await server.fault(path: "/\(bucket)/slow.png", delay: 20)
            let url = try #require(URL(string: "s3://\(bucket)/slow.png"))
            await #expect {
                try await manager.retrieveImage(with: url)
            } throws: { error in
                guard case .responseError(.requestTimedOut) = error as? KingfisherError else { return false }
                return true
            }
        }
    }

    @Test func anS3URLWithoutAKeyIsAnInvalidURL() async throws {
        try await withStore { _, manager, _, bucket in
            let url = try #require(URL(string: "s3://\(bucket)/"))
            await #expect {
                try await manager.retrieveImage(with: url)
            } throws: { error in
                guard case .requestError(.invalidURL) = error as? KingfisherError else { return false }
                return true
            }
        }
    }
}
