import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What one `stat` call tells the disk storage about a cache file.
///
/// The file's modification date holds its expiration (as in Kingfisher) and its access date the last time it
/// was stored or read through the cache (Kingfisher uses the creation date, which Linux cannot set).
struct CacheFileMeta: Sendable {
    let size: UInt
    let expiresAt: Date
    let lastAccess: Date
    let isRegularFile: Bool
    /// When the file's data or metadata last changed (`ctime`: no call can set it).
    var statusChanged: Date = .distantPast
    /// The file's device and inode: which file this is, whatever its name now is.
    var identity: FileIdentity = FileIdentity(device: 0, inode: 0)
}

/// A file's device and inode numbers.
struct FileIdentity: Sendable, Equatable {
    let device: UInt64
    let inode: UInt64
}

/// A cache file read whole through one descriptor: its bytes, metadata and checksum all belong to the same file,
/// even if another writer renames a new one over its name meanwhile.
struct CacheFileContents {
    let data: Data
    let meta: CacheFileMeta
    /// The checksum stored with the bytes, if the file has one (see ``CacheFileIntegrity``).
    let storedChecksum: CacheFileIntegrity.StoredChecksum?
}

/// The few POSIX calls the disk storage needs beyond `FileManager`: one-syscall metadata, setting both dates at
/// once, and an atomic rename.
enum CacheFileSystem {
    /// The file's metadata, or `nil` when it does not exist (or cannot be inspected).
    static func meta(atPath path: String) -> CacheFileMeta? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return meta(info)
    }

    private static func meta(_ info: stat) -> CacheFileMeta {
        #if canImport(Darwin)
            let modified = info.st_mtimespec
            let accessed = info.st_atimespec
            let changed = info.st_ctimespec
        #else
            let modified = info.st_mtim
            let accessed = info.st_atim
            let changed = info.st_ctim
        #endif
        return CacheFileMeta(
            size: UInt(max(0, info.st_size)),
            expiresAt: date(modified),
            lastAccess: date(accessed),
            isRegularFile: (info.st_mode & S_IFMT) == S_IFREG,
            statusChanged: date(changed),
            identity: FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        )
    }

    /// Reads the regular file at `path` whole, with its metadata and stored checksum; `nil` when there is no file
    /// (or something other than a regular file) there. A large file is read into a buffer from `buffers`, which
    /// takes it back when the bytes are released.
    static func read(atPath path: String, buffers: MappingPool? = nil) throws(POSIXErrorBox) -> CacheFileContents? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw POSIXErrorBox.current()
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw POSIXErrorBox.current() }
        let meta = meta(info)
        guard meta.isRegularFile else { return nil }
        let size = Int(meta.size)
        let data: Data
        if size >= pooledReadMinimum, let buffers, let mapping = buffers.take(capacity: size) {
            // A kept mapping's pages are in place already: no page faults, no zeroing, no unmapping afterwards
            // (a fresh buffer of a photo's size cost more than reading the file into it, `perf record`).
            let length: Int
            do {
                length = try readAll(descriptor, into: UnsafeMutableRawBufferPointer(start: mapping.base, count: size))
            } catch {
                buffers.give(base: mapping.base, capacity: mapping.capacity)
                throw error
            }
            data = Data(
                bytesNoCopy: mapping.base, count: length,
                deallocator: .custom { _, _ in buffers.give(base: mapping.base, capacity: mapping.capacity) }
            )
        } else {
            var buffer = Data(count: size)
            let read = buffer.withUnsafeMutableBytes { bytes in
                Result { () throws(POSIXErrorBox) in try readAll(descriptor, into: bytes) }
            }
            let length = try read.get()
            if length < buffer.count { buffer.removeSubrange(length...) }
            data = buffer
        }
        return CacheFileContents(
            data: data, meta: meta, storedChecksum: CacheFileIntegrity.storedChecksum(descriptor: descriptor))
    }

    /// Files of this size or more are read into a buffer from ``MappingPool``: photos of 0.3 to 2 MB are what a
    /// revalidation reads back after its 304s.
    private static let pooledReadMinimum = 256 << 10

    /// Reads from `descriptor` until `buffer` is full or the file ends (it shrank since `fstat`); returns the bytes
    /// read.
    private static func readAll(
        _ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer
    ) throws(POSIXErrorBox) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var offset = 0
        while offset < buffer.count {
            let count = Foundation.read(descriptor, base + offset, buffer.count - offset)
            if count > 0 {
                offset += count
            } else if count < 0 && errno == EINTR {
                continue
            } else if count < 0 {
                throw POSIXErrorBox.current()
            } else {
                break
            }
        }
        return offset
    }

    /// Sets the access and modification dates of the file at `path`.
    static func setDates(atPath path: String, lastAccess: Date, expiresAt: Date) throws(POSIXErrorBox) {
        var times = [posixTime(lastAccess), posixTime(expiresAt)]
        guard utimensat(AT_FDCWD, path, &times, 0) == 0 else { throw POSIXErrorBox.current() }
    }

    /// Creates a new file at `path` holding `data`, with both dates and the data's checksum (`checksum` when the
    /// caller knows it) set before it is closed.
    ///
    /// Plain POSIX calls: `Data.write(to:)` on Linux is about 25 times slower for small files.
    static func createFile(
        atPath path: String, data: Data, lastAccess: Date, expiresAt: Date, checksum: UInt32? = nil
    ) throws(POSIXErrorBox) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw POSIXErrorBox.current() }
        var failure = fill(descriptor, with: data, lastAccess: lastAccess, expiresAt: expiresAt, checksum: checksum)
        if close(descriptor) != 0, failure == nil { failure = POSIXErrorBox.current() }
        if let failure { throw failure }
    }

    /// Writes `data` to the open file, then its checksum and both dates; the first failure.
    static func fill(
        _ descriptor: Int32, with data: Data, lastAccess: Date, expiresAt: Date, checksum: UInt32?
    ) -> POSIXErrorBox? {
        var failure: POSIXErrorBox?
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    failure = written < 0 ? POSIXErrorBox.current() : POSIXErrorBox(code: EIO)
                    return
                }
            }
        }
        if failure == nil {
            CacheFileIntegrity.attachChecksum(of: data, known: checksum, toDescriptor: descriptor)
            var times = [posixTime(lastAccess), posixTime(expiresAt)]
            if futimens(descriptor, &times) != 0 { failure = POSIXErrorBox.current() }
        }
        return failure
    }

    /// Renames `source` over `destination` atomically: a reader sees the old file or the new one, never a mix.
    static func rename(_ source: String, over destination: String) throws(POSIXErrorBox) {
        guard Foundation.rename(source, destination) == 0 else { throw POSIXErrorBox.current() }
    }

    /// Removes the file; `false` when it was already gone.
    static func unlinkFile(atPath path: String) throws(POSIXErrorBox) -> Bool {
        if unlink(path) == 0 { return true }
        let error = POSIXErrorBox.current()
        if error.code == ENOENT { return false }
        throw error
    }

    private static func date(_ time: timespec) -> Date {
        Date(timeIntervalSince1970: TimeInterval(time.tv_sec) + TimeInterval(time.tv_nsec) / 1_000_000_000)
    }

    private static func posixTime(_ date: Date) -> timespec {
        // File systems store a bounded range; clamp `.distantFuture`/`.distantPast` into it.
        let seconds = min(max(date.timeIntervalSince1970, 0), 16_000_000_000)
        let whole = seconds.rounded(.down)
        return timespec(tv_sec: Int(whole), tv_nsec: Int((seconds - whole) * 1_000_000_000))
    }
}

/// An `errno` value as a Swift error, with the message `strerror` gives.
struct POSIXErrorBox: Error, CustomStringConvertible, LocalizedError {
    let code: Int32

    static func current() -> POSIXErrorBox { POSIXErrorBox(code: errno) }

    var description: String { "\(String(cString: strerror(code))) (errno \(code))" }

    /// The system's words for the failure alone ("No space left on device").
    var errorDescription: String? { String(cString: strerror(code)) }
}
