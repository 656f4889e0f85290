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

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// `http://127.0.0.1:<port>`.
    public let endpoint: URL
    /// The key every request must be signed with.
    public let credentials: AWSCredentials
    private let process: Process
    private let input: FileHandle
    private let output: FileHandle
    /// Commands go one at a time: a line out, a line back.
    private let queue = DispatchQueue(label: "kingfisher.test.s3")

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
            let task = Task { try await S3TestServer.start() }
            started = task
            return task
        }
        return try await task.value
    }

    private init(process: Process, input: FileHandle, output: FileHandle, endpoint: URL, credentials: AWSCredentials) {
        self.process = process
        self.input = input
        self.output = output
        self.endpoint = endpoint
        self.credentials = credentials
    }

    private static func start() async throws -> S3TestServer {
        let python = try pythonWithMoto()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "s3_test_server.py")
        let process = Process()
        process.executableURL = python
        process.arguments = [script.path]
        let (toServer, fromServer) = (Pipe(), Pipe())
        let errors = FileManager.default.temporaryDirectory.appending(path: "kf-s3-test-server-\(UUID()).log")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardInput = toServer
        process.standardOutput = fromServer
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        let output = fromServer.fileHandleForReading
        let first = try await Self.readLine(output, on: DispatchQueue(label: "kingfisher.test.s3.start"))
        struct Ready: Decodable {
            let port: Int
            let accessKeyID: String
            let secretAccessKey: String
        }
        guard let first, let ready = try? JSONDecoder().decode(Ready.self, from: Data(first.utf8)) else {
            let log = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            process.terminate()
            throw Failure(description: "the S3 test server did not start:\n\(log.suffix(4000))")
        }
        return S3TestServer(
            process: process, input: toServer.fileHandleForWriting, output: output,
            endpoint: URL(string: "http://127.0.0.1:\(ready.port)")!,
            credentials: AWSCredentials(accessKeyID: ready.accessKeyID, secretAccessKey: ready.secretAccessKey))
    }

    /// The Python that has moto: `KINGFISHER_TEST_PYTHON`, else the package's `.venv-test` (`scripts/bootstrap`).
    private static func pythonWithMoto() throws -> URL {
        if let named = ProcessInfo.processInfo.environment["KINGFISHER_TEST_PYTHON"], !named.isEmpty {
            return URL(fileURLWithPath: named)
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let venv = root.appending(path: ".venv-test/bin/python3")
        guard FileManager.default.isExecutableFile(atPath: venv.path) else {
            throw Failure(
                description: "the S3 tests need moto's server: run scripts/bootstrap (it makes \(venv.path)), or "
                    + "set KINGFISHER_TEST_PYTHON to a Python that has moto[server]")
        }
        return venv
    }

    /// Makes a bucket.
    public func createBucket(_ bucket: String) async throws {
        try await command(["op": "bucket", "bucket": bucket])
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
        try await self.command(command)
    }

    /// What boto3 reads back of `bucket/key`; `nil` when there is no such object.
    public func object(bucket: String, key: String) async throws -> (size: Int, contentType: String?)? {
        let answer = try await command(["op": "get", "bucket": bucket, "key": key], failureIsAnswer: true)
        guard answer["ok"] as? Bool == true, let size = answer["size"] as? Int else { return nil }
        return (size, answer["contentType"] as? String)
    }

    /// Makes the next `times` requests for `path` (`/bucket/key`) wait `delay` seconds first, and, with
    /// `dropAfter`, end the connection after that many body bytes.
    public func fault(path: String, times: Int = 1, delay: Double = 0, dropAfter: Int? = nil) async throws {
        var command: [String: any Sendable] = ["op": "fault", "path": path, "times": times, "delay": delay]
        if let dropAfter { command["drop_after"] = dropAfter }
        try await self.command(command)
    }

    /// Every request the server has received, in order.
    public func requests() async throws -> [SeenRequest] {
        let answer = try await command(["op": "seen"])
        let data = try JSONSerialization.data(withJSONObject: answer["seen"] ?? [])
        return try JSONDecoder().decode([SeenRequest].self, from: data)
    }

    /// Sends one command and returns its answer; a failed command throws unless `failureIsAnswer`.
    @discardableResult
    private func command(_ command: [String: any Sendable], failureIsAnswer: Bool = false) async throws
        -> [String: Any]
    {
        let line = try JSONSerialization.data(withJSONObject: command) + Data("\n".utf8)
        let (input, output) = (self.input, self.output)
        let text: String? = try await withCheckedThrowingContinuation { continuation in
            queue.async {
                do {
                    try input.write(contentsOf: line)
                    continuation.resume(returning: Self.readLineNow(output))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
        guard let text, let answer = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw Failure(description: "the S3 test server stopped")
        }
        if !failureIsAnswer, answer["ok"] as? Bool != true {
            throw Failure(description: "the S3 test server refused \(command): \(answer["error"] ?? "")")
        }
        return answer
    }

    private static func readLine(_ handle: FileHandle, on queue: DispatchQueue) async throws -> String? {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: readLineNow(handle)) }
        }
    }

    /// One line from `handle`, blocking; `nil` at the end of the stream.
    private static func readLineNow(_ handle: FileHandle) -> String? {
        var bytes = [UInt8]()
        while true {
            guard let chunk = try? handle.read(upToCount: 1), let byte = chunk.first else {
                return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }

    deinit {
        try? input.close()
        process.terminate()
    }
}
