import Foundation
import Kingfisher
import KingfisherTestSupport
import Testing

/// `kf fetch s3://bucket/key` against a real S3-compatible server (moto's, started by the tests), configured as
/// users configure the AWS CLI: the `AWS_*` variables, or a profile in `~/.aws/config`.
@Suite("kf fetch s3://")
struct S3FetchCommandTests {
    /// The variables of a user whose settings are only `extra`: HOME is a temp dir, and every other AWS variable
    /// of the test's own environment is blanked.
    private func environment(home: TempDir, _ extra: [String: String]) -> [String: String] {
        var environment = ["HOME": home.url.path]
        for name in [
            "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION", "AWS_DEFAULT_REGION",
            "AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE",
        ] {
            environment[name] = ""
        }
        return environment.merging(extra) { $1 }
    }

    private func variables(_ server: S3TestServer, secret: String? = nil) -> [String: String] {
        [
            "AWS_ACCESS_KEY_ID": server.credentials.accessKeyID,
            "AWS_SECRET_ACCESS_KEY": secret ?? server.credentials.secretAccessKey,
            "AWS_ENDPOINT_URL": server.endpoint.absoluteString, "AWS_REGION": "us-east-1",
        ]
    }

    private func bucket(on server: S3TestServer) async throws -> String {
        let bucket = "kf-cli-\(UUID().uuidString.prefix(8).lowercased())"
        try await server.createBucket(bucket)
        return bucket
    }

    @Test("with the AWS_* variables: an object, its key typed with spaces, downsampled to a file")
    func fetchWithVariables() async throws {
        let server = try await S3TestServer.shared()
        let bucket = try await bucket(on: server)
        try await server.put(try Samples.jpeg(width: 400, height: 200), bucket: bucket, key: "holiday 2026/sea.jpg")
        let dir = try TempDir()
        let run = try await Kf.run(
            [
                "fetch", "s3://\(bucket)/holiday 2026/sea.jpg", "--downsample", "100x100", "-o", dir.path("sea.png"),
                "--cache-dir", dir.path("cache"),
            ], environment: environment(home: dir, variables(server)))
        #expect(run.status == 0, "\(run.stderr)")
        let image = try KFCrossPlatformImage(decoding: try Data(contentsOf: dir.url.appending(path: "sea.png")))
        #expect(image.pixelWidth == 100 && image.pixelHeight == 50)
    }

    @Test("with a profile in ~/.aws/config: its endpoint, addressing and keys")
    func fetchWithProfile() async throws {
        let server = try await S3TestServer.shared()
        let bucket = try await bucket(on: server)
        try await server.put(try Samples.coordinatePNG(width: 64, height: 32), bucket: bucket, key: "a.png")
        let dir = try TempDir()
        try FileManager.default.createDirectory(at: dir.url.appending(path: ".aws"), withIntermediateDirectories: true)
        let config = """
            [profile store]
            region = us-east-1
            s3 =
              endpoint_url = \(server.endpoint.absoluteString)
              addressing_style = path
            aws_access_key_id = \(server.credentials.accessKeyID)
            aws_secret_access_key = \(server.credentials.secretAccessKey)
            """
        try Data(config.utf8).write(to: dir.url.appending(path: ".aws/config"))
        let run = try await Kf.run(
            ["fetch", "s3://\(bucket)/a.png", "--json", "--no-cache"],
            environment: environment(home: dir, ["AWS_PROFILE": "store"]))
        #expect(run.status == 0, "\(run.stderr)")
        let reported = try #require(run.jsonObjects.first)
        #expect(reported["width"] as? Int == 64 && reported["height"] as? Int == 32)
    }

    @Test("a missing key, a wrong secret and a missing profile are each one clear line")
    func failuresSayWhatToCheck() async throws {
        let server = try await S3TestServer.shared()
        let bucket = try await bucket(on: server)
        try await server.put(try Samples.coordinatePNG(width: 8, height: 8), bucket: bucket, key: "a.png")
        let dir = try TempDir()
        let missing = try await Kf.run(
            ["fetch", "s3://\(bucket)/nothing.png", "--no-cache"],
            environment: environment(home: dir, variables(server)))
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("s3://\(bucket)/nothing.png: the bucket has no object by that key (NoSuchKey)"))
        let refused = try await Kf.run(
            ["fetch", "s3://\(bucket)/a.png", "--no-cache"],
            environment: environment(home: dir, variables(server, secret: "wrong")))
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("(SignatureDoesNotMatch): check AWS_SECRET_ACCESS_KEY"), "\(refused.stderr)")
        let noProfile = try await Kf.run(
            ["fetch", "s3://\(bucket)/a.png", "--no-cache"],
            environment: environment(home: dir, ["AWS_PROFILE": "nope"]))
        #expect(noProfile.status != 0)
        #expect(noProfile.stderr.contains("the AWS profile 'nope' is in neither settings file"), "\(noProfile.stderr)")
        // Nothing but the error lines: no XML, no stack
        #expect(!(missing.stderr + refused.stderr).contains("<Error>"))
    }
}
