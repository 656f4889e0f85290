import Foundation
import Kingfisher
import KingfisherLocking

/// A clock tests move by hand, so expiry is tested without sleeping.
final class TestClock: Sendable {
    private let current: Locked<Date>

    init(_ start: Date = Date()) {
        current = Locked(start)
    }

    var now: @Sendable () -> Date {
        { [self] in current.withLock { $0 } }
    }

    func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}

/// A fresh directory under the system's temporary directory, removed when `body` ends however it ends.
func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async rethrows -> T {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
        "kf-cache-tests-\(UUID().uuidString)", isDirectory: true)
    try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try await body(url)
}

/// Ordinary files (not temporaries) in `directory`.
func cacheFiles(in directory: URL) -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.filter { !$0.hasPrefix(".") }.sorted()
}

/// Every entry in `directory`, temporaries included.
func allEntries(in directory: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
}

/// Bytes that are not any image format.
let garbageBytes = Data("this is definitely not an image \u{0} \u{1} \u{2}".utf8)

/// A `DiskStorage.Config` in `directory` with a test clock and no background timer.
func diskConfig(
    _ directory: URL, sizeLimit: UInt = 0, clock: TestClock? = nil, name: String = "test"
) -> DiskStorage.Config {
    var config = DiskStorage.Config(name: name, sizeLimit: sizeLimit, directory: directory)
    config.sweepInterval = 0
    if let clock { config.now = clock.now }
    return config
}

/// An `ImageCache` whose disk layer lives in `directory`.
func makeCache(
    in directory: URL, clock: TestClock? = nil, sizeLimit: UInt = 0, costLimit: Int = 0
) throws -> ImageCache {
    var memoryConfig = MemoryStorage.Config(totalCostLimit: costLimit, cleanInterval: 0)
    if let clock { memoryConfig.now = clock.now }
    let disk = try DiskStorage.Backend<Data>(config: diskConfig(directory, sizeLimit: sizeLimit, clock: clock))
    return ImageCache(memoryStorage: MemoryStorage.Backend(config: memoryConfig), diskStorage: disk)
}

/// Waits for `condition` by polling every 10 ms, up to `timeout` seconds; for background work with no event.
func eventually(timeout: TimeInterval = 10, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// A value with a chosen cost, for memory storage tests.
struct Costly: CacheCostCalculable, Sendable, Equatable {
    let id: Int
    let cacheCost: Int
}

/// The SHA-256 of `text` in hex, from coreutils' `sha256sum`: an implementation independent of ours.
func sha256sum(_ text: String) -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try! process.run()
    input.fileHandleForWriting.write(Data(text.utf8))
    try! input.fileHandleForWriting.close()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data.prefix(64), as: UTF8.self)
}
