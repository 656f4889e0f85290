import Foundation
import Kingfisher
import Testing

@Suite(.timeLimit(.minutes(1)))
struct DiskStorageTests {
    @Test func storesReadsAndRemoves() async throws {
        try await withTemporaryDirectory { directory in
            let disk = try DiskStorage.Backend<Data>(config: diskConfig(directory))
            let payload = Data((0..<1000).map { UInt8(truncatingIfNeeded: $0) })
            try disk.store(value: payload, forKey: "a")
            #expect(try disk.value(forKey: "a") == payload)
            #expect(disk.isCached(forKey: "a"))
            #expect(try disk.value(forKey: "missing") == nil)
            try disk.remove(forKey: "a")
            #expect(try disk.value(forKey: "a") == nil)
            try disk.remove(forKey: "a")  // removing twice is not an error
        }
    }

    @Test func defaultsMatchKingfisher() {
        let config = DiskStorage.Config(name: "x", sizeLimit: 0)
        #expect(config.expiration == .days(7))
        #expect(config.usesHashedFileName)
        #expect(!config.autoExtAfterHashedFileName)
        #expect(config.pathExtension == nil)
    }

    @Test func directoryIsNamedAfterTheCache() async throws {
        try await withTemporaryDirectory { directory in
            let disk = try DiskStorage.Backend<Data>(config: diskConfig(directory, name: "avatars"))
            #expect(disk.directoryURL.lastPathComponent == "com.onevcat.Kingfisher.ImageCache.avatars")
            #expect(disk.directoryURL.deletingLastPathComponent().standardizedFileURL == directory.standardizedFileURL)
            var isDirectory: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: disk.directoryURL.path, isDirectory: &isDirectory))
            #expect(isDirectory.boolValue)
        }
    }

    @Test func fileNamesAreSHA256OfTheKey() async throws {
        try await withTemporaryDirectory { directory in
            let disk = try DiskStorage.Backend<Data>(config: diskConfig(directory))
            let key = "https://example.com/a.png"
            let expected = sha256sum(key)
            #expect(disk.cacheFileURL(forKey: key).lastPathComponent == expected)
            try disk.store(value: Data([1]), forKey: key)
            #expect(cacheFiles(in: disk.directoryURL) == [expected])
        }
    }

    @Test func extensionsFollowTheConfig() async throws {
        try await withTemporaryDirectory { directory in
            var config = diskConfig(directory)
            config.pathExtension = "img"
            let disk = try DiskStorage.Backend<Data>(config: config)
            #expect(disk.cacheFileURL(forKey: "k").pathExtension == "img")
            #expect(disk.cacheFileURL(forKey: "k", forcedExtension: "png").pathExtension == "png")
            config.pathExtension = nil
            config.autoExtAfterHashedFileName = true
            disk.config = config
            #expect(disk.cacheFileURL(forKey: "https://x.org/p/photo.jpeg?size=2").pathExtension == "jpeg")
            #expect(disk.cacheFileURL(forKey: "https://x.org/p/photo").pathExtension == "")
        }
    }

    @Test func expirationLivesInTheModificationDate() async throws {
        try await withTemporaryDirectory { directory in
            let clock = TestClock()
            let disk = try DiskStorage.Backend<Data>(config: diskConfig(directory, clock: clock))
            try disk.store(value: Data([1]), forKey: "a", expiration: .seconds(100))
            let attributes = try FileManager.default.attributesOfItem(atPath: disk.cacheFileURL(forKey: "a").path)
            let modified = try #require(attributes[.modificationDate] as? Date)
            #expect(abs(modified.timeIntervalSince(clock.now().addingTimeInterval(100))) < 0.01)
        }
    }

    @Test func expiresByInjectedTimeAndReadsExtend() async throws {
        try await withTemporaryDirectory { directory in
            let clock = TestClock()
            let disk = try DiskStorage.Backend<Data>(config: diskConfig(directory, clock: clock))
            try disk.store(value: Data([1]), forKey: "read", expiration: .seconds(10))
            try disk.store(value: Data([2]), forKey: "peeked", expiration: .seconds(10))
            try disk.store(value: Data([3]), forKey: "untouched", expiration: .seconds(10))
            clock.advance(by: 8)
            #expect(try disk.value(forKey: "read") == Data([1]))  // extends to t=18
            #expect(try disk.value(forKey: "peeked", extendingExpiration: .none) == Data([2]))
            clock.advance(by: 8)  // t=16
            #expect(try disk.value(forKey: "read") == Data([1]))
            #expect(try disk.value(forKey: "peeked") == nil)
            #expect(!disk.isCached(forKey: "untouched"))
            // Expired files stay until a sweep removes them
            let removed = try disk.removeExpiredValues().map(\.lastPathComponent).sorted()
            let expected = ["peeked", "untouched"].map { disk.cacheFileName(forKey: $0) }.sorted()
            #expect(removed == expected)
            #expect(cacheFiles(in: disk.directoryURL) == [disk.cacheFileName(forKey: "read")])
        }
    }

    @Test func expiredExpirationWritesNothing() async throws {
        try await withTemporaryDirectory { directory in
            let disk = try DiskStorage.Backend<Data>(config: diskConfig(directory))
            try disk.store(value: Data([1]), forKey: "a")
            try disk.store(value: Data([2]), forKey: "a", expiration: .expired)
            #expect(try disk.value(forKey: "a") == nil)
            #expect(cacheFiles(in: disk.directoryURL).isEmpty)
        }
    }

    @Test func sizeEvictionRemovesOldestAccessFirstDownToHalf() async throws {
        try await withTemporaryDirectory { directory in
            // Given 10 files of 100 bytes, stored a second apart, the second one read last
            let clock = TestClock()
            let disk = try DiskStorage.Backend<Data>(config: diskConfig(directory, clock: clock))
            for index in 0..<10 {
                try disk.store(value: Data(repeating: UInt8(index), count: 100), forKey: "k\(index)")
                clock.advance(by: 1)
            }
            _ = try disk.value(forKey: "k1")
            // When the limit becomes 600 bytes (the files hold 1000)
            var config = disk.config
            config.sizeLimit = 600
            disk.config = config
            let removed = try disk.removeSizeExceededValues()
            // Then the oldest accessed go first until at most 300 bytes remain: k0, k2...k7, keeping k8, k9, k1
            let expected = ["k0", "k2", "k3", "k4", "k5", "k6", "k7"].map { disk.cacheFileName(forKey: $0) }
            #expect(removed.map(\.lastPathComponent) == expected)
            #expect(try disk.totalSize() == 300)
            #expect(try disk.value(forKey: "k1") != nil)
            #expect(try disk.value(forKey: "k9") != nil)
        }
    }

    @Test func underTheLimitNothingIsRemoved() async throws {
        try await withTemporaryDirectory { directory in
            let disk = try DiskStorage.Backend<Data>(config: diskConfig(directory, sizeLimit: 1000))
            for index in 0..<5 { try disk.store(value: Data(count: 100), forKey: "\(index)") }
            #expect(try disk.removeSizeExceededValues().isEmpty)
            #expect(try disk.totalSize() == 500)
        }
    }

    @Test func writesOverTheLimitAreNotTrimmedByTheStorageItself() async throws {
        try await withTemporaryDirectory { directory in
            // Given a storage with a 1000-byte limit and no cache over it
            let disk = try DiskStorage.Backend<Data>(config: diskConfig(directory, sizeLimit: 1000))
            // When 12 files of 100 bytes are written (each write done when `store` returns)
            for index in 0..<12 { try disk.store(value: Data(count: 100), forKey: "\(index)") }
            // Then all of them stay (Kingfisher: trimming is `removeSizeExceededValues()`, called explicitly) ...
            // A storage has no upkeep of its own to trim later: timed sweeps are an ImageCache's job, on the
            // cache's periodic work (ImageCacheDiskCleaningTests), so there is no later moment to wait for.
            #expect(cacheFiles(in: disk.directoryURL).count == 12)
            #expect(try disk.totalSize() == 1200)
            // ... until it is called
            #expect(try disk.removeSizeExceededValues().count == 7)
            #expect(try disk.totalSize() == 500)
        }
    }

    @Test func removeAllEmptiesTheDirectory() async throws {
        try await withTemporaryDirectory { directory in
            let disk = try DiskStorage.Backend<Data>(config: diskConfig(directory))
            for index in 0..<5 { try disk.store(value: Data(count: 10), forKey: "\(index)") }
            try disk.removeAll()
            #expect(allEntries(in: disk.directoryURL).isEmpty)
            #expect(try disk.totalSize() == 0)
        }
    }

    @Test func writesLeaveNoTemporaryFiles() async throws {
        try await withTemporaryDirectory { directory in
            let disk = try DiskStorage.Backend<Data>(config: diskConfig(directory))
            for index in 0..<20 { try disk.store(value: Data(count: 50), forKey: "\(index % 5)") }
            #expect(allEntries(in: disk.directoryURL).count == 5)
            #expect(allEntries(in: disk.directoryURL).allSatisfy { !$0.hasPrefix(".") })
        }
    }
}
