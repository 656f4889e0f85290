import Foundation
import Kingfisher
import XCTest

/// Kingfisher's view tests' setUp and tearDown: a downloader of its own, `waitForCache` by default, a clean cache
/// (here one in a temporary directory, not the user's), and the test's loopback server. GTK runs on the main
/// thread (see ``GTKOnMainThread``).
// @unchecked: XCTest runs each test and its handlers' checks on the main thread, where the properties are set.
class KingfisherViewTestCase: XCTestCase, @unchecked Sendable {
    /// This test's files.
    private(set) var scratch: URL!

    /// Every wait's safety net (Kingfisher's are 1-5 s on an idle Mac).
    let timeout: TimeInterval = 30

    override func setUpWithError() throws {
        try super.setUpWithError()
        try GTKOnMainThread.require()
        try startServer()
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "kf-gtk-parity-\(UUID().uuidString)", isDirectory: true)
        KingfisherManager.shared.downloader = ImageDownloader(name: "testDownloader")
        KingfisherManager.shared.cache = try ImageCache(name: "default", cacheDirectoryURL: scratch)
        KingfisherManager.shared.defaultOptions = [.waitForCache]
        cleanDefaultCache()
    }

    override func tearDownWithError() throws {
        if GTKOnMainThread.started {
            cleanDefaultCache()
            KingfisherManager.shared.defaultOptions = .empty
            KingfisherManager.shared.downloader = .default
            KingfisherManager.shared.cache = .default
            try stopServer()
            try? FileManager.default.removeItem(at: scratch)
        }
        try super.tearDownWithError()
    }

    /// XCTest's wait, from the test's synchronous body on the main thread (XCTest binds its waits to the main
    /// actor; Kingfisher's tests call them from `@MainActor` XCTestCase methods).
    func waitForExpectations(timeout: TimeInterval) {
        MainActor.assumeIsolated { super.waitForExpectations(timeout: timeout, handler: nil) }
    }

    /// XCTest's wait for `expectations`, from the test's synchronous body on the main thread (as above).
    func waitFor(_ expectations: [XCTestExpectation], timeout: TimeInterval) {
        MainActor.assumeIsolated { super.wait(for: expectations, timeout: timeout) }
    }

    /// A cache of its own in this test's directory.
    func temporaryCache(_ name: String) throws -> ImageCache {
        try ImageCache(name: name, cacheDirectoryURL: scratch.appendingPathComponent(name, isDirectory: true))
    }
}
