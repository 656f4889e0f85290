import Foundation

/// Where cut-off bodies wait to be resumed: a directory in a disk cache's own directory (``directoryName``), one
/// file per URL, at most ``maximumTotalBytes`` in all and none older than ``maximumAge``.
///
/// A file holds a header line (its format and the JSON of the ``PartialDownload/Identity`` with the bytes'
/// length and CRC-32C) and then the bytes; it is written whole and renamed into place, so a reader sees an old
/// file or a new one, never half of one. A file that does not check out is removed and counts as absent.
struct PartialDownloadStore: Sendable {
    /// The directory's name inside the cache directory (a disk storage leaves sub-directories alone).
    static let directoryName = ".kf-partial"
    private static let magic = "kingfisher-partial-1 "

    let directory: URL
    /// The most bytes kept in all; the oldest files go first.
    let maximumTotalBytes: Int64 = 256 << 20
    /// Files older than this are removed: an origin that changed its image since will answer with all of it.
    let maximumAge: TimeInterval = 86_400

    init(cacheDirectory: URL) {
        directory = cacheDirectory.appendingPathComponent(Self.directoryName, isDirectory: true)
    }

    private struct Header: Codable {
        var identity: PartialDownload.Identity
        var length: Int
        var checksum: UInt32
    }

    /// The bytes kept for `url`, if a file for it checks out.
    func partial(for url: URL) -> PartialDownload? {
        let file = fileURL(for: url)
        guard let contents = try? Data(contentsOf: file, options: .mappedIfSafe) else { return nil }
        guard let decoded = Self.decode(contents) else {
            try? FileManager.default.removeItem(at: file)
            return nil
        }
        return decoded
    }

    /// Keeps `partial` for `url` (replacing what was kept), then trims the directory to its limits. Best effort:
    /// a failure to write only means the next try starts over.
    func keep(_ partial: PartialDownload, for url: URL) {
        guard Int64(partial.bytes.count) < partial.identity.totalLength,
            Int64(partial.bytes.count) <= maximumTotalBytes
        else { return }
        let header = Header(
            identity: partial.identity, length: partial.bytes.count,
            checksum: CacheFileIntegrity.checksum(of: partial.bytes))
        guard let json = try? JSONEncoder().encode(header) else { return }
        var contents = Data(Self.magic.utf8)
        contents.append(json)
        contents.append(UInt8(ascii: "\n"))
        contents.append(partial.bytes)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try contents.write(to: fileURL(for: url), options: .atomic)
        } catch {
            return
        }
        trim(now: Date())
    }

    /// Forgets what was kept for `url`.
    func remove(for url: URL) {
        try? FileManager.default.removeItem(at: fileURL(for: url))
    }

    /// Forgets everything kept.
    func removeAll() {
        try? FileManager.default.removeItem(at: directory)
    }

    /// The kept files and their total length.
    var summary: (count: Int, bytes: Int64) {
        let files = keptFiles()
        return (files.count, files.reduce(0) { $0 + $1.size })
    }

    private func fileURL(for url: URL) -> URL {
        directory.appendingPathComponent(DiskStorage.Config.sha256Hex(url.absoluteString) + ".part")
    }

    /// Removes files past ``maximumAge``, then the oldest until the rest fit in ``maximumTotalBytes``.
    private func trim(now: Date) {
        var files = keptFiles().sorted { $0.modified > $1.modified }
        var total: Int64 = 0
        files.removeAll { file in
            total += file.size
            return now.timeIntervalSince(file.modified) <= maximumAge && total <= maximumTotalBytes
        }
        for file in files { try? FileManager.default.removeItem(at: file.url) }
    }

    private func keptFiles() -> [(url: URL, size: Int64, modified: Date)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.compactMap { name in
            guard name.hasSuffix(".part") else { return nil }
            let url = directory.appendingPathComponent(name)
            guard let meta = CacheFileSystem.meta(atPath: url.path), meta.isRegularFile else { return nil }
            return (url, Int64(meta.size), meta.statusChanged)
        }
    }

    private static func decode(_ contents: Data) -> PartialDownload? {
        let magicBytes = Data(magic.utf8)
        guard contents.starts(with: magicBytes),
            let newline = contents[magicBytes.count...].firstIndex(of: UInt8(ascii: "\n")),
            let header = try? JSONDecoder().decode(Header.self, from: contents[magicBytes.count..<newline])
        else { return nil }
        let bytes = Data(contents[(newline + 1)...])
        guard bytes.count == header.length, Int64(bytes.count) < header.identity.totalLength,
            CacheFileIntegrity.checksum(of: bytes) == header.checksum
        else { return nil }
        return PartialDownload(identity: header.identity, bytes: bytes)
    }
}

extension ImageCache {
    /// The cut-off bodies kept in this cache's directory, for downloads that store here.
    var partialDownloads: PartialDownloadStore {
        PartialDownloadStore(cacheDirectory: diskStorage.directoryURL)
    }
}
