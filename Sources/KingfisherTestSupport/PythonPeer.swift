import Foundation

/// A real peer the tests run in Python (from the `.venv-test` that `scripts/bootstrap` makes): a script started as
/// a child process that prints one JSON line when ready, then answers JSON commands, one line each way, and stops
/// when its input closes (so also when the test process ends).
final class PythonPeer: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let process: Process
    private let input: FileHandle
    private let output: FileHandle
    /// Commands go one at a time: a line out, a line back.
    private let queue = DispatchQueue(label: "kingfisher.test.python-peer")

    /// The ready line the script printed, each value as text.
    let ready: [String: String]

    private init(process: Process, input: FileHandle, output: FileHandle, ready: [String: String]) {
        self.process = process
        self.input = input
        self.output = output
        self.ready = ready
    }

    /// Starts `script` (a file beside this one's folder, e.g. `S3/s3_test_server.py`) and waits for its ready line.
    static func start(_ script: String) async throws -> PythonPeer {
        let support = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let process = Process()
        process.executableURL = try python()
        process.arguments = [support.appending(path: script).path]
        let (toPeer, fromPeer) = (Pipe(), Pipe())
        let errors = FileManager.default.temporaryDirectory.appending(path: "kf-python-peer-\(UUID()).log")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardInput = toPeer
        process.standardOutput = fromPeer
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        let output = fromPeer.fileHandleForReading
        let first: String? = await withCheckedContinuation { continuation in
            DispatchQueue(label: "kingfisher.test.python-peer.start").async {
                continuation.resume(returning: readLine(output))
            }
        }
        guard let first, let ready = try? JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any] else {
            let log = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            process.terminate()
            throw Failure(description: "\(script) did not start:\n\(log.suffix(4000))")
        }
        return PythonPeer(
            process: process, input: toPeer.fileHandleForWriting, output: output,
            ready: ready.mapValues { "\($0)" })
    }

    /// The Python that has the peers' packages: `KINGFISHER_TEST_PYTHON`, else the package's `.venv-test`.
    private static func python() throws -> URL {
        if let named = ProcessInfo.processInfo.environment["KINGFISHER_TEST_PYTHON"], !named.isEmpty {
            return URL(fileURLWithPath: named)
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let venv = root.appending(path: ".venv-test/bin/python3")
        guard FileManager.default.isExecutableFile(atPath: venv.path) else {
            throw Failure(
                description: "the tests' Python peers need \(venv.path): run scripts/bootstrap (or scripts/test-venv), "
                    + "or set KINGFISHER_TEST_PYTHON to a Python with moto[server] and opentelemetry-proto")
        }
        return venv
    }

    /// Sends one command and returns its answer; a failed command throws unless `failureIsAnswer`.
    @discardableResult
    func command(_ command: [String: any Sendable], failureIsAnswer: Bool = false) async throws -> [String: Any] {
        let line = try JSONSerialization.data(withJSONObject: command) + Data("\n".utf8)
        let (input, output) = (self.input, self.output)
        let text: String? = try await withCheckedThrowingContinuation { continuation in
            queue.async {
                do {
                    try input.write(contentsOf: line)
                    continuation.resume(returning: Self.readLine(output))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
        guard let text, let answer = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw Failure(description: "the Python peer stopped")
        }
        if !failureIsAnswer, answer["ok"] as? Bool != true {
            throw Failure(description: "the Python peer refused \(command): \(answer["error"] ?? "")")
        }
        return answer
    }

    /// One line from `handle`, blocking; `nil` at the end of the stream.
    private static func readLine(_ handle: FileHandle) -> String? {
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
