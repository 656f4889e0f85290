import Foundation
import KingfisherLocking

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a command to completion with a timeout, cancellable from the calling task; its output goes to temporary
/// files (a pipe could fill up and stall the child).
struct ChildProcess {
    /// How a run ended.
    struct Outcome {
        let status: Int32
        let standardOutput: Data
        let standardError: String
        /// The timeout ended it.
        let timedOut: Bool
    }

    private enum LaunchState {
        case notStarted, running, cancelled
    }

    let executable: URL
    let arguments: [String]
    let timeout: TimeInterval

    /// Runs the command; cancelling the calling task terminates it (then `CancellationError` is thrown).
    func run() async throws -> Outcome {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "kingfisher-child-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("out")
        let errURL = scratch.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let outHandle = try FileHandle(forWritingTo: outURL)
        let errHandle = try FileHandle(forWritingTo: errURL)
        defer {
            try? outHandle.close()
            try? errHandle.close()
        }

        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = outHandle
        process.standardError = errHandle
        let timedOut = Locked(false)
        // Launching and cancelling take one lock, so a cancel that lands while the child is being launched waits
        // for the launch and then kills it (checked separately, a cancel could fall between the check and the launch
        // and the child ran to its end).
        let launch = Locked(LaunchState.notStarted)
        // Resumed once: by the child's end, or at once by a cancel (after the kill), so a cancel never waits for
        // Foundation to notice the child's end (that notice rides on dispatch threads a busy process may not have
        // free: measured 20–34 s under load).
        let waiting = Locked<CheckedContinuation<Int32, any Error>?>(nil)
        let finish: @Sendable (Result<Int32, CancellationError>) -> Void = { result in
            waiting.withLock { stored in
                defer { stored = nil }
                return stored
            }?.resume(with: result)
        }
        let status = try await withTaskCancellationHandler {
            try await withSanitizedCheckedThrowingContinuation {
                (continuation: CheckedContinuation<Int32, any Error>) in
                waiting.withLock { $0 = continuation }
                let launched: Result<Void, any Error> = launch.withLock { state in
                    guard state == .notStarted else { return .failure(CancellationError()) }
                    process.terminationHandler = { finish(.success($0.terminationStatus)) }
                    do {
                        try process.run()
                    } catch {
                        process.terminationHandler = nil
                        return .failure(error)
                    }
                    state = .running
                    return .success(())
                }
                if case .failure(let error) = launched {
                    waiting.withLock { stored in
                        defer { stored = nil }
                        return stored
                    }?.resume(throwing: error)
                    return
                }
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                    guard process.isRunning else { return }
                    timedOut.withLock { $0 = true }
                    Self.kill(process)
                }
            }
        } onCancel: {
            launch.withLock { state in
                if state == .running, process.isRunning { Self.kill(process) }
                state = .cancelled
            }
            finish(.failure(CancellationError()))
        }
        try Task.checkCancellation()
        return Outcome(
            status: status, standardOutput: try Data(contentsOf: outURL),
            standardError: String(decoding: try Data(contentsOf: errURL), as: UTF8.self),
            timedOut: timedOut.withLock { $0 })
    }

    /// Ends the child with SIGKILL: `Process.terminate()` sends SIGTERM, which children spawned from our threads
    /// can inherit blocked (measured: `sleep 30` ran its 30 s after `terminate()`).
    private static func kill(_ process: Process) {
        #if canImport(Glibc)
            _ = Glibc.kill(process.processIdentifier, SIGKILL)
        #else
            process.terminate()
        #endif
    }

    /// The first executable called `name` on `PATH`.
    static func find(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }
}
