import CChecksum
import CFileAttributes
import Foundation
import KingfisherLocking
import Testing

@testable import Kingfisher

/// Cache files are written through a file without a name linked into place (`O_TMPFILE`), or, where the system
/// has none, through a temporary name renamed into place: either way the file has its bytes, checksum and dates,
/// a replaced file is replaced whole, and no other name is left in the directory.
@Suite(.timeLimit(.minutes(1)))
struct CacheFileWriteRouteTests {
    private func checksumAttribute(of url: URL) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 16)
        let length = buffer.withUnsafeMutableBytes {
            getxattr(url.path, CacheFileIntegrity.attributeName, $0.baseAddress, $0.count)
        }
        return length >= 0 ? Array(buffer.prefix(length)) : nil
    }

    @Test(arguments: [true, false])
    func bothRoutesWriteTheWholeFileAndLeaveNoOtherName(unnamed: Bool) async throws {
        try await withTemporaryDirectory { directory in
            let clock = TestClock()
            let disk = try DiskStorage.Backend<Data>(config: diskConfig(directory, clock: clock))
            disk.writesUnnamedFiles = unnamed
            for (round, value) in [Fixtures.jpeg(width: 64, height: 48), Fixtures.png(width: 20, height: 10)]
                .enumerated()
            {
                try disk.store(value: value, forKey: "photo", expiration: .seconds(600))
                let url = disk.cacheFileURL(forKey: "photo")
                #expect(try Data(contentsOf: url) == value, "round \(round)")
                let crc = value.withUnsafeBytes { kf_crc32c_portable($0.baseAddress, $0.count) }
                #expect(checksumAttribute(of: url) == withUnsafeBytes(of: crc.bigEndian) { Array($0) })
                let meta = try #require(CacheFileSystem.meta(atPath: url.path))
                #expect(abs(meta.expiresAt.timeIntervalSince(clock.now().addingTimeInterval(600))) < 1)
                let names = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
                #expect(names == [url.lastPathComponent], "\(names)")
                #expect(try disk.value(forKey: "photo") == value)
            }
        }
    }

    @Test func theUnnamedRouteIsTakenWhereTheFileSystemHasIt() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("entry").path
            let written = try CacheFileSystem.writeUnnamedFile(
                atPath: path, inDirectory: directory.path, data: Data("first".utf8), lastAccess: Date(),
                expiresAt: Date().addingTimeInterval(60), checksum: nil)
            #expect(written, "O_TMPFILE and /proc/self/fd are available here")
            // A second write to the same name replaces the file (linked to a temporary name, renamed over it)
            _ = try CacheFileSystem.writeUnnamedFile(
                atPath: path, inDirectory: directory.path, data: Data("second".utf8), lastAccess: Date(),
                expiresAt: Date().addingTimeInterval(60), checksum: nil)
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "second")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["entry"])
        }
    }

    @Test func aVanishedDirectoryIsReportedAsMissing() async {
        await withTemporaryDirectory { directory in
            let gone = directory.appendingPathComponent("gone")
            let error = #expect(throws: POSIXErrorBox.self) {
                _ = try CacheFileSystem.writeUnnamedFile(
                    atPath: gone.appendingPathComponent("entry").path, inDirectory: gone.path, data: Data([1]),
                    lastAccess: Date(), expiresAt: Date(), checksum: nil)
            }
            #expect(error?.code == ENOENT)
        }
    }
}
