import Foundation
import Kingfisher
import KingfisherTestSupport
import Testing

@testable import KingfisherServer

/// `kf serve`'s S3 loader and shared result store against a real S3-compatible server (moto's, started by the
/// tests, checking every signature): keys from paths, the statuses of the store's refusals, the source guard on the
/// endpoint, and two instances sharing results through one bucket.
@Suite struct S3ServingTests {
    private static let photo = ServerFixtures.jpeg(width: 640, height: 320)

    /// A bucket of the test's own on the shared S3 test server, with the photo at `photos/a.jpg` (fresh for an
    /// hour by its `Cache-Control`, as objects behind an image server are usually uploaded).
    private func bucket(_ store: S3TestServer) async throws -> String {
        let bucket = "kf-serve-\(UUID().uuidString.prefix(8).lowercased())"
        try await store.createBucket(bucket)
        try await store.put(
            Self.photo, bucket: bucket, key: "photos/a.jpg", contentType: "image/jpeg", cacheControl: "max-age=3600")
        return bucket
    }

    private func configure(
        _ store: S3TestServer, buckets: [String], storage: S3Configuration? = nil, allowEndpoint: Bool = true
    ) -> (inout ImageServer.Configuration) -> Void {
        { configuration in
            configuration.s3Loader = ImageServer.S3Loader(buckets: buckets)
            configuration.objectStorage = storage ?? store.configuration
            if allowEndpoint {
                configuration.allowedSources.append(.init(host: "127.0.0.1", port: store.endpoint.port))
            } else {
                configuration.allowedSources = []
            }
        }
    }

    private func sourceGets(_ store: S3TestServer, _ path: String) async throws -> Int {
        try await store.requests().filter { $0.method == "GET" && $0.path == path }.count
    }

    @Test func aPathIsAKeyInTheOneBucket() async throws {
        let store = try await S3TestServer.shared()
        let bucket = try await bucket(store)
        try await withHarness(configure(store, buckets: [bucket])) { harness in
            let answer = try await harness.request(harness.signed("160x80/photos/a.jpg"))
            #expect(answer.status == 200, "\(answer.text)")
            let image = try KFCrossPlatformImage(decoding: answer.body)
            #expect(image.pixelWidth == 160 && image.pixelHeight == 80)
            #expect(try await sourceGets(store, "/\(bucket)/photos/a.jpg") == 1)
        }
    }

    @Test func withSeveralBucketsThePathNamesOneOfThemAndNoOther() async throws {
        let store = try await S3TestServer.shared()
        let (first, second) = (try await bucket(store), try await bucket(store))
        try await withHarness(configure(store, buckets: [first, second])) { harness in
            #expect(try await harness.request("/unsafe/100x50/\(second)/photos/a.jpg").status == 200)
            let other = try await harness.request("/unsafe/100x50/kf-not-listed/photos/a.jpg")
            #expect(other.status == 403)
            let missing = try await harness.request("/unsafe/100x50/\(first)/photos/none.jpg")
            #expect(missing.status == 404)
            #expect(missing.text.contains("NoSuchKey") && !missing.text.contains("<"))
        }
    }

    @Test func aRefusedSignatureIs403AndTheStoresXMLNeverReachesTheClient() async throws {
        let store = try await S3TestServer.shared()
        let bucket = try await bucket(store)
        let wrong = store.configuration(secret: "wrong")
        try await withHarness(configure(store, buckets: [bucket], storage: wrong)) { harness in
            let answer = try await harness.request("/unsafe/100x50/photos/a.jpg")
            #expect(answer.status == 403)
            #expect(answer.text.contains("SignatureDoesNotMatch") && !answer.text.contains("<Error>"))
        }
    }

    @Test func theEndpointPassesTheSourceGuardAsAnyOrigin() async throws {
        let store = try await S3TestServer.shared()
        let bucket = try await bucket(store)
        // A loopback endpoint not on the allow-list is refused like a loopback origin
        try await withHarness(allowOrigin: false, configure(store, buckets: [bucket], allowEndpoint: false)) {
            harness in
            let answer = try await harness.request("/unsafe/100x50/photos/a.jpg")
            #expect(answer.status == 403)
            #expect(try await sourceGets(store, "/\(bucket)/photos/a.jpg") == 0)
        }
    }

    /// moto cannot be made to answer `SlowDown`: a loopback server plays an endpoint that does (a fake, for that
    /// fault only).
    @Test func slowDownIs503WithRetryAfter() async throws {
        let endpoint = try await TestHTTPServer.start()
        let slowDown = Data(
            "<?xml version=\"1.0\"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>"
                .utf8)
        endpoint.route(
            "/busy/a.jpg",
            TestHTTPServer.Route(status: 503, headers: [("Content-Type", "application/xml")], body: slowDown))
        let storage = S3Configuration(
            endpoint: URL(string: "http://127.0.0.1:\(endpoint.port)")!,
            credentials: AWSCredentials(accessKeyID: "AKID", secretAccessKey: "secret"), addressing: .path)
        let busy = { (configuration: inout ImageServer.Configuration) in
            configuration.s3Loader = ImageServer.S3Loader(buckets: ["busy"])
            configuration.objectStorage = storage
            configuration.allowedSources = [.init(host: "127.0.0.1", port: endpoint.port)]
        }
        try await withHarness(busy) { harness in
            let answer = try await harness.request("/unsafe/100x50/a.jpg")
            #expect(answer.status == 503)
            #expect(answer.header("Retry-After") != nil)
            #expect(answer.text.contains("SlowDown"))
        }
        try await endpoint.shutdown()
    }

    @Test func twoInstancesShareResultsThroughTheStore() async throws {
        let store = try await S3TestServer.shared()
        let bucket = try await bucket(store)
        let results = "kf-results-\(UUID().uuidString.prefix(8).lowercased())"
        try await store.createBucket(results)
        let shared = { (configuration: inout ImageServer.Configuration) in
            self.configure(store, buckets: [bucket])(&configuration)
            configuration.resultStore = ImageServer.ResultStore(bucket: results, prefix: "made")
        }
        let path = "/unsafe/200x100/photos/a.jpg"
        let first = try await ServerHarness.start(shared)
        let made = try await first.request(path)
        let name = first.server.manager.cache.hash(
            forKey: "s3://\(bucket)/photos/a.jpg", processorIdentifier: try resultIdentifier(first, path))
        let resultsMade = first.server.resultsMade
        // The instance that made it goes away
        await first.stop()
        #expect(made.status == 200 && resultsMade == 1)
        // The result is in the bucket under the name the disk cache gives it, with its media type
        let kept = try #require(try await store.object(bucket: results, key: "made/\(name)"))
        #expect(kept.size == made.body.count && kept.contentType == "image/jpeg")
        // Another instance, with an empty cache, serves the same bytes, fetching nothing; so does it for a size
        // nobody made, from the original kept in the store
        try await withHarness(shared) { second in
            let served = try await second.request(path)
            #expect(served.status == 200 && served.body == made.body)
            #expect(second.server.resultsMade == 1)  // one turn through `make`, which found it in the store
            #expect(try await sourceGets(store, "/\(bucket)/photos/a.jpg") == 1)
            // and keeps it in front of the store: the next request reads nothing from the bucket
            let storeReads = try await sourceGets(store, "/\(results)/made/\(name)")
            #expect(try await second.request(path).body == made.body)
            #expect(try await sourceGets(store, "/\(results)/made/\(name)") == storeReads)
            // A size nobody made: made here from the original the first instance kept in the store, not fetched
            let other = try await second.request("/unsafe/120x60/photos/a.jpg")
            #expect(other.status == 200)
            #expect(try KFCrossPlatformImage(decoding: other.body).pixelWidth == 120)
            #expect(second.server.resultsMade == 2)
            #expect(try await sourceGets(store, "/\(bucket)/photos/a.jpg") == 1)
        }
        // meta/ of the stored result, on a third instance: the source's size from the original in the store
        try await withHarness(shared) { third in
            let meta = try await third.request("/unsafe/meta/200x100/photos/a.jpg")
            #expect(meta.status == 200, "\(meta.text)")
            #expect(meta.text.contains("\"width\":640") && meta.text.contains("\"height\":320"), "\(meta.text)")
            #expect(try await sourceGets(store, "/\(bucket)/photos/a.jpg") == 1)
        }
    }

    /// The processor identifier of a thumbor path's result, as the server computes it.
    private func resultIdentifier(_ harness: ServerHarness, _ path: String) throws -> String {
        let url = try ThumborURL(path: path)
        return try ResultPlan(url: url, accept: nil, configuration: harness.server.configuration).processor.identifier
    }
}
