import Foundation
import Kingfisher
import Testing

/// A cache file whose metadata cannot be read, as Kingfisher reads it: a miss unless the storage's file manager sees
/// the file, then `invalidURLResource`. (Kingfisher's own tests make the directory unsearchable, which root ignores;
/// a loop of links gives the same failure to every user.)
@Suite(.timeLimit(.minutes(1)))
struct DiskStorageUnreadableMetadataTests {
    /// Stores `"1"` under `key`, then puts a link that points at itself where the storage's directory was, so every
    /// path inside it fails with `ELOOP`. Returns the storage.
    private func storageBehindALinkLoop(
        in directory: URL, fileManager: FileManager = .default
    ) throws -> DiskStorage.Backend<Data> {
        var config = DiskStorage.Config(name: "test", sizeLimit: 0, fileManager: fileManager, directory: directory)
        config.sweepInterval = 0
        let storage = try DiskStorage.Backend<Data>(config: config)
        try storage.store(value: Data("1".utf8), forKey: "1")
        let cacheDirectory = storage.directoryURL
        try FileManager.default.moveItem(at: cacheDirectory, to: directory.appendingPathComponent("moved"))
        try FileManager.default.createSymbolicLink(
            atPath: cacheDirectory.path, withDestinationPath: cacheDirectory.lastPathComponent)
        return storage
    }

    @Test func aFileWhoseDirectoryCannotBeSearchedIsAMiss() async throws {
        try await withTemporaryDirectory { directory in
            let storage = try storageBehindALinkLoop(in: directory)
            #expect(!storage.isCached(forKey: "1"))
            #expect(try storage.value(forKey: "1") == nil)
        }
    }

    @Test func aFileTheFileManagerSeesButWhoseMetadataCannotBeReadIsInvalidURLResource() async throws {
        try await withTemporaryDirectory { directory in
            let fileManager = SeeingFileManager()
            let storage = try storageBehindALinkLoop(in: directory, fileManager: fileManager)
            fileManager.sees(storage.cacheFileURL(forKey: "1").path)
            #expect {
                _ = try storage.value(forKey: "1")
            } throws: { error in
                guard case .cacheError(reason: .invalidURLResource(_, let key, let url)) = error as? KingfisherError
                else { return false }
                return key == "1" && url == storage.cacheFileURL(forKey: "1")
            }
        }
    }
}

/// A file manager that says a path exists although its metadata cannot be read: the fault Kingfisher's test makes
/// with its lying file manager, which no real file system produces on demand.
// @unchecked: the seen path is set once before the storage reads, under a lock.
private final class SeeingFileManager: FileManager, @unchecked Sendable {
    private let seen = NSLock()
    private var path: String?

    func sees(_ path: String) {
        seen.withLock { self.path = path }
    }

    override func fileExists(atPath path: String) -> Bool {
        if seen.withLock({ self.path == path }) { return true }
        return super.fileExists(atPath: path)
    }
}
