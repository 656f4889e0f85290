import Foundation
import Kingfisher
import KingfisherTestSupport
import Testing

/// Faults a real file system can produce: vanished, unwritable, full and read-only directories, corrupt files,
/// and keys that try to escape the directory.
@Suite(.timeLimit(.minutes(1)))
struct DiskStorageFaultTests {
    private func cacheErrorCode(_ body: () throws -> Void) -> Int? {
        do {
            try body()
            return nil
        } catch let error as KingfisherError {
            return error.errorCode
        } catch {
            return -1
        }
    }

    @Test func aDirectoryUnderARegularFileCannotBeCreated() async throws {
        try await withTemporaryDirectory { directory in
            // Root ignores permission bits, but nobody can create a directory inside a regular file
            let blocker = directory.appendingPathComponent("blocker")
            try Data("file".utf8).write(to: blocker)
            let code = cacheErrorCode { _ = try DiskStorage.Backend<Data>(config: diskConfig(blocker)) }
            #expect(code == 3005)
            #expect(throws: KingfisherError.self) {
                _ = try ImageCache(name: "x", cacheDirectoryURL: blocker)
            }
        }
    }

    @Test func readingFromAStorageWhoseDirectoryCouldNotBeCreatedThrowsNotReady() async throws {
        try await withTemporaryDirectory { directory in
            // Given a storage made without throwing whose directory would be inside a regular file
            let blocker = directory.appendingPathComponent("blocker")
            try Data("file".utf8).write(to: blocker)
            let disk = DiskStorage.Backend<Data>(noThrowConfig: diskConfig(blocker), creatingDirectory: true)
            // When it is read: Kingfisher's diskStorageIsNotReady (3011), naming the directory
            do throws(KingfisherError) {
                _ = try disk.value(forKey: "a")
                Issue.record("expected diskStorageIsNotReady")
            } catch {
                guard case .cacheError(reason: .diskStorageIsNotReady(let url)) = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(url == disk.directoryURL)
                #expect(error.errorCode == 3011)
            }
            // And through a cache over it, a disk lookup fails with the same reason
            let cache = ImageCache(
                memoryStorage: MemoryStorage.Backend(config: MemoryStorage.Config(totalCostLimit: 0, cleanInterval: 0)),
                diskStorage: disk)
            do throws(KingfisherError) {
                _ = try await cache.retrieveImageInDiskCache(forKey: "a")
                Issue.record("expected diskStorageIsNotReady")
            } catch {
                #expect(error.errorCode == 3011)
            }
            // Once the directory can exist, a write makes it and reads work again
            try FileManager.default.removeItem(at: blocker)
            try disk.store(value: Data([7]), forKey: "a")
            #expect(try disk.value(forKey: "a") == Data([7]))
        }
    }

    @Test func aStorageThatDefersItsDirectoryReadsMissesNotNotReady() async throws {
        try await withTemporaryDirectory { directory in
            let disk = DiskStorage.Backend<Data>(noThrowConfig: diskConfig(directory), creatingDirectory: false)
            let value = try disk.value(forKey: "a")
            #expect(value == nil)
        }
    }

    @Test func aDeletedDirectoryIsAMissThenIsRecreatedOnWrite() async throws {
        try await withTemporaryDirectory { directory in
            let disk = try DiskStorage.Backend<Data>(config: diskConfig(directory))
            try disk.store(value: Data([1, 2, 3]), forKey: "a")
            try FileManager.default.removeItem(at: disk.directoryURL)
            #expect(try disk.value(forKey: "a") == nil)
            #expect(!disk.isCached(forKey: "a"))
            #expect(try disk.totalSize() == 0)
            #expect(try disk.removeExpiredValues().isEmpty)
            try disk.store(value: Data([4]), forKey: "b")
            #expect(try disk.value(forKey: "b") == Data([4]))
        }
    }

    @Test func aDirectoryReplacedByAFileFailsWritesWithAnError() async throws {
        try await withTemporaryDirectory { directory in
            let cache = try makeCache(in: directory)
            try FileManager.default.removeItem(at: cache.diskStorage.directoryURL)
            try Data("in the way".utf8).write(to: cache.diskStorage.directoryURL)
            let image = Fixtures.gradient(width: 8, height: 8)
            // The disk write fails with cannotCreateCacheFile (or cannot create the directory) ...
            await #expect(throws: KingfisherError.self) { try await cache.store(image, forKey: "k") }
            // ... the memory store still happened, and disk lookups are misses, not crashes
            #expect(cache.imageCachedType(forKey: "k") == .memory)
            cache.clearMemoryCache()
            #expect(try await cache.retrieveImage(forKey: "k").cacheType == .none)
            let code = cacheErrorCode { try cache.diskStorage.store(value: Data([1]), forKey: "k") }
            #expect(code == 3009)
        }
    }

    @Test(.enabled(if: TmpfsMount.isAvailable, "needs root and tmpfs mounts"))
    func aFullDiskFailsTheWriteAndKeepsEverythingElse() async throws {
        try await withTemporaryDirectory { directory in
            let mount = try TmpfsMount(at: directory.appendingPathComponent("small"), options: "size=64k")
            defer { mount.unmount() }
            // Given a 64 KB file system and a stored file
            let disk = try DiskStorage.Backend<Data>(config: diskConfig(mount.url))
            let first = Data(repeating: 7, count: 8_000)
            try disk.store(value: first, forKey: "first")
            // When writes of 16 KB go on until the disk is full
            var failure: Int?
            for index in 0..<20 where failure == nil {
                failure = cacheErrorCode {
                    try disk.store(value: Data(repeating: UInt8(index), count: 16_000), forKey: "big\(index)")
                }
            }
            // Then the write fails with cannotCreateCacheFile, older files are intact, no half file remains
            #expect(failure == 3009)
            #expect(try disk.value(forKey: "first") == first)
            #expect(allEntries(in: disk.directoryURL).allSatisfy { !$0.hasPrefix(".") })
            for name in cacheFiles(in: disk.directoryURL) {
                let size =
                    try FileManager.default.attributesOfItem(
                        atPath: disk.directoryURL.appendingPathComponent(name).path)[.size] as? Int
                #expect(size == 8_000 || size == 16_000)
            }
        }
    }

    @Test(.enabled(if: TmpfsMount.isAvailable, "needs root and tmpfs mounts"))
    func aReadOnlyDirectoryServesReadsAndFailsWrites() async throws {
        try await withTemporaryDirectory { directory in
            let mount = try TmpfsMount(at: directory.appendingPathComponent("ro"), options: "size=256k")
            defer { mount.unmount() }
            let disk = try DiskStorage.Backend<Data>(config: diskConfig(mount.url))
            try disk.store(value: Data([1, 2]), forKey: "kept")
            try mount.remount(options: "remount,ro")
            // Root cannot write to a read-only mount
            #expect(cacheErrorCode { try disk.store(value: Data([3]), forKey: "new") } == 3009)
            #expect(try disk.value(forKey: "kept") == Data([1, 2]))  // extending the expiration fails silently
            #expect(try disk.value(forKey: "new") == nil)
        }
    }

    @Test func hostileKeysStayInsideTheDirectory() async throws {
        let keys = [
            "../../etc/passwd", "/absolute/path", "..", ".", "a/b/c", "key@processor@other", "🐟🦜 emoji",
            String(repeating: "k", count: 2000), String(repeating: "é/", count: 700), "", "%2F", "\u{0}nul",
        ]
        for hashed in [true, false] {
            try await withTemporaryDirectory { directory in
                var config = diskConfig(directory)
                config.usesHashedFileName = hashed
                let disk = try DiskStorage.Backend<Data>(config: config)
                for (index, key) in keys.enumerated() {
                    try disk.store(value: Data("value \(index)".utf8), forKey: key)
                    let url = disk.cacheFileURL(forKey: key)
                    #expect(
                        url.deletingLastPathComponent().standardizedFileURL == disk.directoryURL.standardizedFileURL)
                    #expect(url.lastPathComponent.utf8.count <= 255)
                }
                // Every key reads back its own value: no two keys share a file, nothing landed outside
                for (index, key) in keys.enumerated() {
                    #expect(try disk.value(forKey: key) == Data("value \(index)".utf8), "key \(key.prefix(20))")
                }
                #expect(allEntries(in: disk.directoryURL).count == keys.count)
                #expect(allEntries(in: directory) == [disk.directoryURL.lastPathComponent])
            }
        }
    }

    @Test func unhashedNamesAreReadable() async throws {
        try await withTemporaryDirectory { directory in
            var config = diskConfig(directory)
            config.usesHashedFileName = false
            let disk = try DiskStorage.Backend<Data>(config: config)
            #expect(disk.cacheFileName(forKey: "photo@2x.png") == "photo@2x.png")
            #expect(disk.cacheFileName(forKey: "a/b") == "a%2Fb")
            #expect(disk.cacheFileName(forKey: "..") == "%2E.")
            #expect(disk.cacheFileName(forKey: "\u{0}") == "%00")
        }
    }
}
