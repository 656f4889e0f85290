public import Foundation
public import Kingfisher
import KingfisherLocking

/// A real S3-compatible server for the tests: moto's server (from PyPI, in the `.venv-test` that `scripts/bootstrap`
/// makes) on 127.0.0.1 at a port of its own, checking each request's signature against the access key it made at
/// start. Objects are put and read back with boto3, not with the code under test. See `s3_test_server.py`.
///
/// One server is started per test process (``shared()``), when a test first needs it, and stops when the process
/// ends (its input closes). Tests keep apart by using buckets of their own.
public final class S3TestServer: Sendable {
    /// A request the server received.
    public struct SeenRequest: Sendable, Decodable {
        public let method: String
        public let path: String
        public let range: String?
        public let traceparent: String?
    }

    /// `http://127.0.0.1:<port>`.
    public let endpoint: URL
    /// The key every request must be signed with.
    public let credentials: AWSCredentials
    private let peer: PythonPeer

    /// Settings that reach this server with its key, path-style.
    public var configuration: S3Configuration {
        S3Configuration(endpoint: endpoint, region: "us-east-1", credentials: credentials, addressing: .path)
    }

    /// The same settings with `secret` as the secret: every request is refused with `SignatureDoesNotMatch`.
    public func configuration(secret: String) -> S3Configuration {
        var configuration = configuration
        configuration.credentials?.secretAccessKey = secret
        return configuration
    }

    private static let started = Locked<Task<S3TestServer, any Error>?>(nil)

    /// The process's server, started on first use.
    public static func shared() async throws -> S3TestServer {
        let task = started.withLock { started in
            if let started { return started }
            let task = Task { try await S3TestServer(peer: PythonPeer.start("S3/s3_test_server.py")) }
            started = task
            return task
        }
        return try await task.value
    }

    private init(peer: PythonPeer) throws {
        guard let port = peer.ready["port"].flatMap(Int.init), let key = peer.ready["accessKeyID"],
            let secret = peer.ready["secretAccessKey"]
        else { throw PythonPeer.Failure(description: "the S3 test server's ready line lacks its port or key") }
        self.peer = peer
        endpoint = URL(string: "http://127.0.0.1:\(port)")!
        credentials = AWSCredentials(accessKeyID: key, secretAccessKey: secret)
    }

    /// Makes a bucket.
    public func createBucket(_ bucket: String) async throws {
        try await peer.command(["op": "bucket", "bucket": bucket])
    }

    /// Puts `data` as `bucket/key` (through boto3), with `cacheControl` as the object's `Cache-Control` when given.
    public func put(
        _ data: Data, bucket: String, key: String, contentType: String = "application/octet-stream",
        cacheControl: String? = nil
    ) async throws {
        let file = FileManager.default.temporaryDirectory.appending(path: "kf-s3-put-\(UUID())")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var command: [String: any Sendable] = [
            "op": "put", "bucket": bucket, "key": key, "file": file.path, "contentType": contentType,
        ]
        if let cacheControl { command["cacheControl"] = cacheControl }
        try await peer.command(command)
    }

    /// What boto3 reads back of `bucket/key`; `nil` when there is no such object.
    public func object(bucket: String, key: String) async throws -> (size: Int, contentType: String?)? {
        let answer = try await peer.command(["op": "get", "bucket": bucket, "key": key], failureIsAnswer: true)
        guard answer["ok"] as? Bool == true, let size = answer["size"] as? Int else { return nil }
        return (size, answer["contentType"] as? String)
    }

    /// Makes the next `times` requests for `path` (`/bucket/key`) wait `delay` seconds first, and, with
    /// `dropAfter`, end the connection after that many body bytes.
    public func fault(path: String, times: Int = 1, delay: Double = 0, dropAfter: Int? = nil) async throws {
        var command: [String: any Sendable] = ["op": "fault", "path": path, "times": times, "delay": delay]
        if let dropAfter { command["drop_after"] = dropAfter }
        try await peer.command(command)
    }

    /// Every request the server has received, in order.
    public func requests() async throws -> [SeenRequest] {
        let answer = try await peer.command(["op": "seen"])
        let data = try JSONSerialization.data(withJSONObject: answer["seen"] ?? [])
        return try JSONDecoder().decode([SeenRequest].self, from: data)
    }
}
