import CFileAttributes
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension CacheFileSystem {
    /// Writes `data` as the file at `path` in `directory` through a file without a name (Linux's `O_TMPFILE`),
    /// filled, dated and checksummed, then linked to `path`: a reader sees no file or the whole one, as with a
    /// temporary file renamed into place, but the directory changes once instead of three times (a name made, then
    /// renamed over `path`), and a process killed on the way leaves nothing behind. When `path` is taken, the file
    /// is linked to a temporary name renamed over it, so the old file is replaced at once.
    ///
    /// - Returns: `false` when the system or the file system has no unnamed files (or no `/proc` to link them
    ///   through, or refuses to link them): nothing was written, and the caller writes through a temporary name
    ///   instead.
    static func writeUnnamedFile(
        atPath path: String, inDirectory directory: String, data: Data, lastAccess: Date, expiresAt: Date,
        checksum: UInt32?
    ) throws(POSIXErrorBox) -> Bool {
        let descriptor = cfile_open_unnamed(directory, 0o644)
        guard descriptor >= 0 else {
            let error = POSIXErrorBox.current()
            if [EOPNOTSUPP, EISDIR, EINVAL].contains(error.code) { return false }
            throw error
        }
        defer { close(descriptor) }
        if let failure = fill(descriptor, with: data, lastAccess: lastAccess, expiresAt: expiresAt, checksum: checksum)
        {
            throw failure
        }
        if cfile_link_unnamed(descriptor, path) == 0 { return true }
        let error = POSIXErrorBox.current()
        switch error.code {
        case EEXIST:
            let temporary = (directory as NSString).appendingPathComponent(CacheTemporaryFile.makeName())
            guard cfile_link_unnamed(descriptor, temporary) == 0 else { throw POSIXErrorBox.current() }
            do {
                try rename(temporary, over: path)
            } catch {
                _ = try? unlinkFile(atPath: temporary)
                throw error
            }
            return true
        case ENOENT, EPERM:
            // No /proc/self/fd to link through, or a system that refuses such links (unless the directory went).
            guard meta(atPath: directory) != nil else { throw error }
            return false
        default:
            throw error
        }
    }
}
