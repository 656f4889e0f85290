import Foundation
import Kingfisher
import KingfisherLocking
import KingfisherTestSupport

/// Runs the `kf` binary SwiftPM built beside the test bundle, with its output captured in files (a pipe could
/// fill up and stall the child).
struct KfRun {
    let status: Int32
    let stdout: String
    let stderr: String

    var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }
    var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }

    /// The `--json` lines of stdout, decoded.
    var jsonObjects: [[String: Any]] {
        stdoutLines.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }
}

enum Kf {
    /// The `kf` executable in the build products directory (where the test bundle is too).
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("kf")
    }

    /// A product SwiftPM built beside `kf` (`kf-gallery`, `kf-view`).
    static func product(_ name: String) -> URL {
        executable.deletingLastPathComponent().appendingPathComponent(name)
    }

    /// Runs `kf arguments...` (or another `executable`) in `directory`, with standard input from `stdin` and
    /// `environment` added to the test's, and waits for it. `standardOutput` replaces the captured standard output
    /// (whose text is then empty).
    static func run(
        _ arguments: [String], in directory: URL? = nil, stdin: String? = nil, standardOutput: FileHandle? = nil,
        environment extra: [String: String] = [:], executable: URL = Kf.executable
    ) async throws -> KfRun {
        let scratch = try TempDir()
        let outURL = scratch.url.appendingPathComponent("out")
        let errURL = scratch.url.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = scratch.url.appendingPathComponent("xdg").path  // never the user's cache
        environment.merge(extra) { $1 }
        process.environment = environment
        let outHandle = try FileHandle(forWritingTo: outURL)
        let errHandle = try FileHandle(forWritingTo: errURL)
        process.standardOutput = standardOutput ?? outHandle
        process.standardError = errHandle
        if let stdin {
            let inURL = scratch.url.appendingPathComponent("in")
            try Data(stdin.utf8).write(to: inURL)
            process.standardInput = try FileHandle(forReadingFrom: inURL)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        let status = try await withSanitizedCheckedThrowingContinuation {
            (continuation: CheckedContinuation<Int32, any Error>) in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        try outHandle.close()
        try errHandle.close()
        return KfRun(
            status: status, stdout: try String(contentsOf: outURL, encoding: .utf8),
            stderr: try String(contentsOf: errURL, encoding: .utf8))
    }
}

/// A fresh temporary directory, removed when the value goes away.
final class TempDir: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("kf-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// Test images drawn here.
enum Samples {
    /// A `width` x `height` image whose pixel (x, y) is (x mod 256, y mod 256, 90), opaque, as PNG.
    static func coordinatePNG(width: Int, height: Int) throws -> Data {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let index = (y * width + x) * 4
                pixels[index] = UInt8(x % 256)
                pixels[index + 1] = UInt8(y % 256)
                pixels[index + 2] = 90
            }
        }
        let image = try KFCrossPlatformImage(rgbaPixels: pixels, width: width, height: height)
        return try image.kf.encoded(as: .PNG)
    }

    static func jpeg(width: Int, height: Int) throws -> Data {
        try KFCrossPlatformImage(decoding: coordinatePNG(width: width, height: height)).kf.encoded(
            as: .JPEG, compressionQuality: 0.9)
    }
}

extension TestHTTPServer.Route {
    /// `200` with `body`, fresh for an hour (`Cache-Control: max-age=3600`): what a server that wants its images
    /// cached sends, so that `kf`, which follows caching headers, serves them from its cache on the next run.
    static func cacheable(_ body: Data, contentType: String = "application/octet-stream") -> Self {
        TestHTTPServer.Route(
            headers: [("Content-Type", contentType), ("Cache-Control", "max-age=3600")], body: body)
    }
}
