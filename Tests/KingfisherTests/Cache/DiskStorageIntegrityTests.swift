import CChecksum
import CFileAttributes
import Foundation
import Logging
import Testing

@testable import Kingfisher

/// Cache files damaged after they were written (a cut, a lost tail, garbage, bytes changed in place) are never
/// served: the checksum stored with each file, or the end of the image data for files without one, catches them,
/// and the file is removed so the next retrieval fetches it again.
@Suite(.timeLimit(.minutes(1)))
struct DiskStorageIntegrityTests {
    /// Ways a stored file gets damaged, all keeping its modification date (its expiration).
    enum Damage: CaseIterable {
        case cutInHalf, lastTwoBytesLost, garbageAfterHeader

        func apply(to data: Data) -> Data {
            switch self {
            case .cutInHalf: data.prefix(data.count / 2)
            case .lastTwoBytesLost: data.dropLast(2)
            case .garbageAfterHeader:
                // Letters only: none of the bytes any format ends with
                data.prefix(64) + Data((64..<data.count).map { UInt8(0x41 + $0 % 20) })
            }
        }
    }

    /// Rewrites the file at `url` with `damage` applied, keeping its dates, as a disk or another tool would.
    private func damage(_ url: URL, _ damage: Damage) throws {
        try rewrite(url) { damage.apply(to: $0) }
    }

    private func rewrite(_ url: URL, _ change: (Data) -> Data) throws {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        let handle = try FileHandle(forUpdating: url)
        let changed = change(try handle.readToEnd() ?? Data())
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: changed)
        try handle.close()
        try FileManager.default.setAttributes(
            [.modificationDate: attributes[.modificationDate]!], ofItemAtPath: url.path)
    }

    @Test(arguments: Damage.allCases)
    func aDamagedFileIsRemovedAndReadAsAMiss(_ kind: Damage) async throws {
        try await withTemporaryDirectory { directory in
            let disk = try DiskStorage.Backend<Data>(config: diskConfig(directory))
            let jpeg = Fixtures.jpeg(width: 96, height: 64)
            try disk.store(value: jpeg, forKey: "photo")
            let url = disk.cacheFileURL(forKey: "photo")
            try damage(url, kind)
            let expiresBefore = try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date
            #expect(expiresBefore != nil)
            #expect(disk.isCached(forKey: "photo"))  // a stat alone cannot tell
            #expect(try disk.value(forKey: "photo") == nil)
            #expect(!FileManager.default.fileExists(atPath: url.path))
            // A fresh write is served again
            try disk.store(value: jpeg, forKey: "photo")
            #expect(try disk.value(forKey: "photo") == jpeg)
        }
    }

    @Test func bytesChangedInPlaceAreCaughtByTheDigest() async throws {
        try await withTemporaryDirectory { directory in
            let disk = try DiskStorage.Backend<Data>(config: diskConfig(directory))
            let png = Fixtures.png()
            try disk.store(value: png, forKey: "k")
            // Same length, same end: only the checksum can tell
            try rewrite(disk.cacheFileURL(forKey: "k")) { data in
                var changed = data
                changed[data.count / 2] ^= 0xFF
                return changed
            }
            #expect(!disk.isIntact(forKey: "k"))
            #expect(!disk.isCached(forKey: "k"))
            #expect(try disk.value(forKey: "k") == nil)
        }
    }

    @Test func anyDataTypeIsChecked() async throws {
        try await withTemporaryDirectory { directory in
            let disk = try DiskStorage.Backend<Data>(config: diskConfig(directory))
            let text = Data("not an image: the end check cannot tell, the checksum can".utf8)
            try disk.store(value: text, forKey: "t")
            #expect(disk.isIntact(forKey: "t"))
            try rewrite(disk.cacheFileURL(forKey: "t")) { $0.dropLast(3) }
            #expect(try disk.value(forKey: "t") == nil)
        }
    }

    /// Files written without a checksum (an older version, a copy that dropped extended attributes, a file system
    /// without them) are judged by the end of their image data.
    @Test func withoutAChecksumTheEndOfTheImageDataDecides() async throws {
        let animated = try Fixtures.animation(colors: [[255, 0, 0, 255], [0, 0, 255, 255]], durations: [0.1, 0.1])
            .kf.encoded(as: .GIF, compressionQuality: 1)
        let webp = try Fixtures.gradient(width: 40, height: 30).kf.encoded(as: .WebP, compressionQuality: 0.8)
        let samples: [(String, Data)] = [
            ("jpeg", Fixtures.jpeg()), ("png", Fixtures.png()), ("gif", animated), ("webp", webp),
        ]
        try await withTemporaryDirectory { directory in
            let disk = try DiskStorage.Backend<Data>(config: diskConfig(directory))
            for (name, data) in samples {
                // WebP declares its length up front: garbage of the same length passes the end check (the checksum
                // catches it, see above).
                let damages: [Damage?] = [nil] + Damage.allCases.filter { name != "webp" || $0 != .garbageAfterHeader }
                for damage in damages {
                    let key = "\(name)-\(damage.map { "\($0)" } ?? "intact")"
                    let url = disk.cacheFileURL(forKey: key)
                    try (damage?.apply(to: data) ?? data).write(to: url)  // no checksum attribute
                    try FileManager.default.setAttributes(
                        [.modificationDate: Date().addingTimeInterval(3600)], ofItemAtPath: url.path)
                    let read = try disk.value(forKey: key)
                    if damage == nil {
                        #expect(read == data, "\(key)")
                    } else {
                        #expect(read == nil, "\(key)")
                        #expect(!FileManager.default.fileExists(atPath: url.path), "\(key)")
                    }
                }
            }
        }
    }

    // MARK: - The checksum

    @Test func crc32cGivesTheStandardCheckValueOnEveryPath() {
        // The check value of the CRC-32C catalogue entry (RFC 3720 uses the same polynomial)
        let check = Data("123456789".utf8)
        #expect(CacheFileIntegrity.checksum(of: check) == 0xE306_9283)
        // The hardware path agrees with the table at every alignment and length
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<70_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes.withUnsafeBytes { buffer in
            for (offset, length) in [(0, 0), (1, 1), (3, 7), (5, 8), (7, 9), (1, 4096), (6, 69_990), (0, 70_000)] {
                let start = buffer.baseAddress! + offset
                #expect(kf_crc32c(start, length) == kf_crc32c_portable(start, length), "\(offset) \(length)")
            }
        }
    }

    @Test func eachFileCarriesTheCRC32COfItsBytes() async throws {
        try await withTemporaryDirectory { directory in
            let disk = try DiskStorage.Backend<Data>(config: diskConfig(directory))
            let jpeg = Fixtures.jpeg(width: 64, height: 48)
            try disk.store(value: jpeg, forKey: "photo")
            let stored = try #require(
                attribute(CacheFileIntegrity.attributeName, of: disk.cacheFileURL(forKey: "photo")))
            let expected = jpeg.withUnsafeBytes { kf_crc32c_portable($0.baseAddress, $0.count) }
            #expect(stored == withUnsafeBytes(of: expected.bigEndian) { Array($0) })
            #expect(attribute(CacheFileIntegrity.legacyAttributeName, of: disk.cacheFileURL(forKey: "photo")) == nil)
        }
    }

    /// Caches written by earlier versions carry a SHA-256 instead; it still decides.
    @Test func filesOfEarlierVersionsAreCheckedAgainstTheirSHA256() async throws {
        try await withTemporaryDirectory { directory in
            let disk = try DiskStorage.Backend<Data>(config: diskConfig(directory))
            let text = "not an image, so only the digest can judge it"
            for (key, damaged) in [("intact", false), ("changed", true)] {
                let url = disk.cacheFileURL(forKey: key)
                var data = Data(text.utf8)
                try data.write(to: url)
                let digest = try #require(hexBytes(sha256sum(text)))
                let set = digest.withUnsafeBytes {
                    setxattr(url.path, CacheFileIntegrity.legacyAttributeName, $0.baseAddress, 32, 0)
                }
                #expect(set == 0)
                if damaged {
                    data[3] ^= 0x20
                    let handle = try FileHandle(forWritingTo: url)
                    try handle.write(contentsOf: data)
                    try handle.close()
                }
                try FileManager.default.setAttributes(
                    [.modificationDate: Date().addingTimeInterval(3600)], ofItemAtPath: url.path)
                #expect(try disk.value(forKey: key) == (damaged ? nil : Data(text.utf8)), "\(key)")
            }
        }
    }

    private func attribute(_ name: String, of url: URL) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 64)
        let length = buffer.withUnsafeMutableBytes { getxattr(url.path, name, $0.baseAddress, $0.count) }
        return length >= 0 ? Array(buffer.prefix(length)) : nil
    }

    private func hexBytes(_ hex: String) -> [UInt8]? {
        let characters = Array(hex.utf8)
        guard characters.count == 64 else { return nil }
        return stride(from: 0, to: 64, by: 2).compactMap {
            UInt8(String(decoding: characters[$0..<$0 + 2], as: UTF8.self), radix: 16)
        }
    }

    @Test func endOfDataCheckPerFormat() throws {
        let jpeg = Fixtures.jpeg()
        #expect(ImageDataEnd.isComplete(jpeg))
        #expect(ImageDataEnd.isComplete(jpeg + Data(repeating: 0, count: 16)))  // padding after EOI
        #expect(!ImageDataEnd.isComplete(jpeg.dropLast(2)))
        let png = Fixtures.png()
        #expect(ImageDataEnd.isComplete(png))
        #expect(!ImageDataEnd.isComplete(png.dropLast(1)))
        let webp = try Fixtures.gradient(width: 8, height: 8).kf.encoded(as: .WebP, compressionQuality: 0.5)
        #expect(ImageDataEnd.isComplete(webp))
        #expect(!ImageDataEnd.isComplete(webp.dropLast(1)))
        #expect(!ImageDataEnd.isComplete(webp + Data([0, 0, 0, 0])))
        // ISO boxes: sizes must add up to the file's length
        let box: (String, Int) -> Data = { type, size in
            Data([0, 0, UInt8(size >> 8), UInt8(size & 0xFF)]) + Data(type.utf8) + Data(count: size - 8)
        }
        let heif = box("ftyp", 24).replacingBytes(at: 8, with: Data("heic".utf8)) + box("meta", 40) + box("mdat", 100)
        #expect(Data(heif).kf.imageFormat == .HEIF)
        #expect(ImageDataEnd.isComplete(heif))
        #expect(!ImageDataEnd.isComplete(heif.dropLast(10)))
        // Formats without a reliable end, and other data, are not judged
        #expect(ImageDataEnd.isComplete(Data("plain text".utf8)))
    }

    @Test func aDamagedReadIsLoggedThroughTheCachesLogger() async throws {
        try await withTemporaryDirectory { directory in
            let cache = try makeCache(in: directory)
            let log = RecordingLog()
            cache.logger = log.logger
            try await cache.store(Fixtures.gradient(width: 8, height: 8), forKey: "k")
            try damage(cache.diskStorage.cacheFileURL(forKey: "k"), .cutInHalf)
            cache.clearMemoryCache()
            #expect(try await cache.retrieveImage(forKey: "k").cacheType == .none)
            let entries = log.entries
            #expect(entries.count == 1)
            #expect(entries.first?.level == .warning)
            #expect(entries.first?.metadata["kf.reason"]?.contains("checksum") == true)
        }
    }

    // MARK: - Temporary files of writes that never finished

    @Test func abandonedTemporariesAreCountedThenRemovedWhenTheStorageOpens() async throws {
        try await withTemporaryDirectory { directory in
            let disk = try DiskStorage.Backend<Data>(config: diskConfig(directory))
            // Its own opening clean-up has run (an exclusive job starts after it), so what follows is counted first.
            await disk.io.perform(.exclusive) {}
            try disk.store(value: Data([1, 2, 3]), forKey: "kept")
            let host = CacheTemporaryFile.hostTag
            let dead = try deadProcessID()
            let names = [
                ".kf-tmp-\(host)-\(dead)-A",  // its writer is gone: abandoned
                ".kf-tmp-\(host)-\(getpid())-B",  // a write of this (live) process: kept
                ".kf-tmp-otherhost-\(dead)-C",  // another host's writer: only age can tell
                ".kf-tmp-1234ABCD",  // an older name without a writer: only age can tell
            ]
            for name in names {
                try Data(repeating: 9, count: 1000).write(to: disk.directoryURL.appendingPathComponent(name))
            }
            let summary = try disk.summary()
            #expect(summary.fileCount == 1)
            #expect(summary.temporaryCount == 4)
            #expect(summary.temporarySize == 4000)

            // Opening the storage again removes the abandoned one in the background
            let reopened = try DiskStorage.Backend<Data>(config: diskConfig(directory))
            let remaining = { Set(allEntries(in: reopened.directoryURL).filter { $0.hasPrefix(".kf-tmp-") }) }
            #expect(await eventually { remaining().count == 3 })
            #expect(remaining() == Set(names.dropFirst()))
            #expect(try reopened.value(forKey: "kept") == Data([1, 2, 3]))
        }
    }

    @Test func removingExpiredValuesAlsoRemovesAbandonedTemporaries() async throws {
        try await withTemporaryDirectory { directory in
            let disk = try DiskStorage.Backend<Data>(config: diskConfig(directory))
            try disk.store(value: Data([1, 2, 3]), forKey: "kept")
            // Its opening's clean-up has run: what follows is removeExpiredValues'
            await disk.io.perform(.exclusive) {}
            let abandoned = ".kf-tmp-\(CacheTemporaryFile.hostTag)-\(try deadProcessID())-A"
            let live = ".kf-tmp-\(CacheTemporaryFile.hostTag)-\(getpid())-B"
            for name in [abandoned, live] {
                try Data(repeating: 9, count: 100).write(to: disk.directoryURL.appendingPathComponent(name))
            }
            let removed = try disk.removeExpiredValues().map(\.lastPathComponent)
            #expect(removed.contains(abandoned))
            #expect(!removed.contains(live))
            #expect(try disk.totalSize() == 3)
            #expect(try disk.value(forKey: "kept") == Data([1, 2, 3]))
        }
    }

    @Test func temporariesUnchangedForFiveMinutesAreAbandonedWhoeverWroteThem() {
        let now = Date()
        let live = ".kf-tmp-\(CacheTemporaryFile.hostTag)-\(getpid())-X"
        #expect(!CacheTemporaryFile.isAbandoned(name: live, changed: now, now: now))
        #expect(!CacheTemporaryFile.isAbandoned(name: ".kf-tmp-old", changed: now.addingTimeInterval(-299), now: now))
        #expect(CacheTemporaryFile.isAbandoned(name: live, changed: now.addingTimeInterval(-301), now: now))
        #expect(CacheTemporaryFile.isAbandoned(name: ".kf-tmp-old", changed: now.addingTimeInterval(-301), now: now))
        #expect(CacheTemporaryFile.makeName().hasPrefix(".kf-tmp-\(CacheTemporaryFile.hostTag)-\(getpid())-"))
    }

    @Test func removeAllLeavesSubdirectoriesAlone() async throws {
        try await withTemporaryDirectory { directory in
            let disk = try DiskStorage.Backend<Data>(config: diskConfig(directory))
            try disk.store(value: Data([1]), forKey: "a")
            let folder = disk.directoryURL.appendingPathComponent(String(repeating: "ab", count: 32))
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            try disk.removeAll()
            #expect(allEntries(in: disk.directoryURL) == [folder.lastPathComponent])
        }
    }

    /// The process ID of a process that has exited (and been reaped).
    private func deadProcessID() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }
}

extension Data {
    fileprivate func replacingBytes(at offset: Int, with bytes: Data) -> Data {
        var copy = self
        copy.replaceSubrange(offset..<offset + bytes.count, with: bytes)
        return copy
    }
}
