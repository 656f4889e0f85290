import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The temporary files writes go through, and how abandoned ones are found.
///
/// A write goes through a file without a name where the system has them (``CacheFileSystem/writeUnnamedFile(atPath:inDirectory:data:lastAccess:expiresAt:checksum:)``);
/// otherwise, and to replace a file, it creates `.kf-tmp-<host>-<pid>-<uuid>` and renames it over the cache file; a
/// process killed in between leaves it behind. A temporary is abandoned when its writer (a process of this host, named in the file name) is
/// gone, or when it has not changed for ``abandonedAge`` (a live write changes it with every block it writes; this
/// also covers writers on other hosts sharing the directory and names without a writer).
enum CacheTemporaryFile {
    static let prefix = ".kf-tmp-"

    /// How long an unchanged temporary file may stay before it counts as abandoned.
    static let abandonedAge: TimeInterval = 300

    /// A new temporary file name for this process.
    static func makeName() -> String {
        "\(prefix)\(hostTag)-\(getpid())-\(UUID().uuidString)"
    }

    static func isTemporary(_ name: String) -> Bool {
        name.hasPrefix(prefix)
    }

    /// Whether the temporary file `name`, last changed at `changed`, will never be renamed into place.
    static func isAbandoned(name: String, changed: Date, now: Date = Date()) -> Bool {
        if now.timeIntervalSince(changed) > abandonedAge { return true }
        let parts = name.dropFirst(prefix.count).split(separator: "-", maxSplits: 2)
        guard parts.count == 3, parts[0] == hostTag, let pid = pid_t(parts[1]), pid > 0 else { return false }
        return kill(pid, 0) != 0 && errno == ESRCH
    }

    /// This host's name reduced to letters and digits (at most 32), so it cannot contain the `-` separator.
    static let hostTag: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "host" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let tag = String(
            name.unicodeScalars.filter { $0.isASCII && $0.properties.isAlphabetic || ("0"..."9").contains($0) }
                .prefix(32).map(Character.init))
        return tag.isEmpty ? "host" : tag
    }()
}

extension DiskStorage.Backend {
    /// Removes the temporary files of writes that will never finish (see ``CacheTemporaryFile``); returns them.
    /// Runs on its own when the storage is created, off the caller's thread, and with every
    /// ``removeExpiredValues()`` (so with every sweep).
    @discardableResult
    func removeAbandonedTemporaries() -> [URL] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directoryURL.path) else { return [] }
        let now = Date()
        var removed: [URL] = []
        for name in names where CacheTemporaryFile.isTemporary(name) {
            let url = directoryURL.appendingPathComponent(name, isDirectory: false)
            guard let meta = CacheFileSystem.meta(atPath: url.path), meta.isRegularFile,
                CacheTemporaryFile.isAbandoned(name: name, changed: meta.statusChanged, now: now),
                (try? CacheFileSystem.unlinkFile(atPath: url.path)) == true
            else { continue }
            removed.append(url)
        }
        return removed
    }
}
