public import Foundation
public import Logging
import KingfisherLocking

/// The on-disk half of ``ImageCache``: a namespace for ``Backend`` and ``Config``.
public enum DiskStorage {
    /// A directory of files, one per key, with expiration, access-ordered eviction and a size limit.
    ///
    /// Methods block on file I/O; ``ImageCache`` calls them off the caller's thread. Each file's modification
    /// date holds its expiration and its access date the last store or read. Writes go to a temporary file in
    /// the same directory that is then renamed over the old one, so a reader (in this or another process
    /// sharing the directory) sees the old file or the new one, never part of one. A file that vanishes between
    /// two steps counts as a miss, never as an error.
    ///
    /// ```swift
    /// let disk = try DiskStorage.Backend<Data>(config: .init(name: "thumbs", sizeLimit: 200 << 20))
    /// try disk.store(value: jpeg, forKey: "a")
    /// let data = try disk.value(forKey: "a")
    /// ```
    public final class Backend<T: DataTransformable>: Sendable {
        struct State {
            var config: Config
            /// The total size as last measured plus what this process wrote since; `nil` until first measured.
            var knownTotalSize: UInt?
            /// Bytes written minus bytes removed since the last measurement began.
            var changeSinceMeasuring = 0
            /// `false` while the directory could not be created when the storage was made (until a write makes it).
            var directoryReady = true
            var logger: Logger?
            /// Whether writes try an unnamed file first (tests turn it off to check the other route).
            var writesUnnamedFiles = true
        }

        /// The directory the files are in.
        public let directoryURL: URL
        let state: Locked<State>
        /// Where the storage's disk work runs when it is not called directly: its own bounded threads
        /// (``Config/ioConcurrency``), used by an ``ImageCache`` over it for every read, write, removal and sweep,
        /// and by the storage for the clean-up of writes abandoned before it was opened.
        let io: DiskIO
        /// Released buffers of large files read, kept for the next reads of this storage: 8 MB, half of what one
        /// pool kept for the whole process before each owner had its own (a downloader keeps the other half), so a
        /// server with one cache and one downloader keeps what it kept then.
        let readBuffers = MappingPool(maximumBytes: 8 << 20)

        /// Creates a storage and its directory.
        /// - Throws: ``KingfisherError/CacheErrorReason/cannotCreateDirectory(path:error:)``.
        public convenience init(config: Config) throws(KingfisherError) {
            self.init(noThrowConfig: config, creatingDirectory: false)
            try prepareDirectory()
        }

        /// Creates a storage; a directory that cannot be created now is tried again on the next write.
        ///
        /// Until then (unless it appears by other means) reads throw
        /// ``KingfisherError/CacheErrorReason/diskStorageIsNotReady(cacheURL:)``, as in Kingfisher.
        /// - Parameter creatingDirectory: whether to create the directory now; `false` leaves it to the first
        ///   write (a storage that is never written, such as a memory-only cache's, never creates it).
        public init(noThrowConfig config: Config, creatingDirectory: Bool) {
            self.directoryURL = config.directoryURL
            self.state = Locked(State(config: config))
            self.io = DiskIO(limit: max(1, config.ioConcurrency))
            if creatingDirectory {
                do {
                    try prepareDirectory()
                } catch {
                    state.withLock { $0.directoryReady = false }
                }
            }
            // Writes a killed process left half done: found with a directory listing, so not on the caller's thread.
            io.submit { [weak self] in self?.removeAbandonedTemporaries() }
        }

        /// Whether writes try a file without a name linked into place first (`true`), or always write through a
        /// temporary name renamed into place (tests check both routes).
        package var writesUnnamedFiles: Bool {
            get { state.withLock { $0.writesUnnamedFiles } }
            set { state.withLock { $0.writesUnnamedFiles = newValue } }
        }

        /// The configuration. Changing the name or directory does not move ``directoryURL``.
        public var config: Config {
            get { state.withLock { $0.config } }
            set { state.withLock { $0.config = newValue } }
        }

        /// Where the storage reports what it does on its own: damaged files it removed, writes that failed. `nil`
        /// (nothing logged) by default. ``ImageCache/logger`` sets it.
        public var logger: Logger? {
            get { state.withLock { $0.logger } }
            set { state.withLock { $0.logger = newValue } }
        }

        /// Writes `value` under `key`, atomically, replacing any file there.
        /// - Parameters:
        ///   - expiration: how long it lives; ``Config/expiration`` when `nil`. An already expired expiration
        ///     writes nothing and removes any file under `key`.
        ///   - writeOptions: ignored except for documentation parity: writes are always atomic here.
        ///   - forcedExtension: a file extension overriding ``Config/pathExtension``.
        /// - Throws: ``KingfisherError/CacheErrorReason/cannotConvertToData(object:error:)`` or
        ///   ``KingfisherError/CacheErrorReason/cannotCreateCacheFile(fileURL:key:data:error:)``; nothing else
        ///   in the directory is touched.
        public func store(
            value: T, forKey key: String, expiration: StorageExpiration? = nil,
            writeOptions: Data.WritingOptions = [], forcedExtension: String? = nil
        ) throws(KingfisherError) {
            try store(
                value: value, forKey: key, expiration: expiration, forcedExtension: forcedExtension, checksum: nil)
        }

        /// As ``store(value:forKey:expiration:writeOptions:forcedExtension:)``, with the CRC-32C of the value's
        /// bytes when the caller computed it already (a download's bytes, for its HTTP record): not computed again.
        func store(
            value: T, forKey key: String, expiration: StorageExpiration?, forcedExtension: String?, checksum: UInt32?
        ) throws(KingfisherError) {
            let config = self.config
            let now = config.now()
            let expiresAt = (expiration ?? config.expiration).estimatedExpirationSince(now)
            let fileURL = cacheFileURL(forKey: key, forcedExtension: forcedExtension)
            guard expiresAt > now else {
                try removeFile(at: fileURL)
                return
            }
            let data: Data
            do {
                data = try value.toData()
            } catch {
                throw .cacheError(reason: .cannotConvertToData(object: value, error: error))
            }
            let previousSize = CacheFileSystem.meta(atPath: fileURL.path)?.size ?? 0
            do {
                try writeAtomically(data, to: fileURL, lastAccess: now, expiresAt: expiresAt, checksum: checksum)
            } catch let error as POSIXErrorBox where error.code == ENOENT {
                // The directory vanished (removed by hand or another process): make it again, once.
                try? prepareDirectory()
                do {
                    try writeAtomically(data, to: fileURL, lastAccess: now, expiresAt: expiresAt, checksum: checksum)
                } catch {
                    throw .cacheError(
                        reason: .cannotCreateCacheFile(fileURL: fileURL, key: key, data: data, error: error))
                }
            } catch {
                throw .cacheError(reason: .cannotCreateCacheFile(fileURL: fileURL, key: key, data: data, error: error))
            }
            noteWrite(added: UInt(data.count), replaced: previousSize)
        }

        /// The value stored under `key`, or `nil` when there is none or it has expired.
        ///
        /// The bytes are checked against the checksum stored with them (or, for a file without one, by the end of
        /// their image data; see ``isIntact(forKey:forcedExtension:)``). A damaged file is removed, logged to
        /// ``logger``, and read as a miss, so the caller fetches the value again; its expiration is not extended.
        /// - Parameter extendingExpiration: what the read does to the expiration. `.cacheTime` (the same
        ///   duration again, from now) by default.
        /// - Throws: ``KingfisherError/CacheErrorReason/cannotLoadDataFromDisk(url:error:)`` when the file exists
        ///   but cannot be read or converted;
        ///   ``KingfisherError/CacheErrorReason/diskStorageIsNotReady(cacheURL:)`` when the directory could not be
        ///   created when the storage was made and still does not exist.
        public func value(
            forKey key: String, forcedExtension: String? = nil, extendingExpiration: ExpirationExtending = .cacheTime
        ) throws(KingfisherError) -> T? {
            try checkDirectoryReady()
            let fileURL = cacheFileURL(forKey: key, forcedExtension: forcedExtension)
            let now = config.now()
            guard let contents = try intactContents(of: fileURL, key: key, now: now) else { return nil }
            extendExpiration(of: fileURL, meta: contents.meta, now: now, extending: extendingExpiration)
            do {
                return try T.fromData(contents.data)
            } catch {
                throw .cacheError(reason: .cannotLoadDataFromDisk(url: fileURL, error: error))
            }
        }

        /// Whether the unexpired file under `key` holds the bytes that were stored: its checksum matches, or, for a
        /// file stored without one, its image data ends as its format ends. Reads the whole file; a damaged one is
        /// removed (as ``value(forKey:forcedExtension:extendingExpiration:)`` does). `false` on a miss. Ours:
        /// for checks that would otherwise trust a file's existence, such as a prefetch deciding to skip.
        public func isIntact(forKey key: String, forcedExtension: String? = nil) -> Bool {
            let fileURL = cacheFileURL(forKey: key, forcedExtension: forcedExtension)
            return (try? intactContents(of: fileURL, key: key, now: config.now())) != nil
        }

        /// The file's contents when it exists, has not expired, and passes its integrity check; a damaged file
        /// is removed (unless another writer replaced it meanwhile) and counts as a miss.
        ///
        /// A file that cannot be opened fails as in Kingfisher: when even its metadata cannot be read (a directory
        /// that cannot be searched, a loop of links) and ``Config/fileManager`` does not see it either, it is a
        /// miss; seen there, ``KingfisherError/CacheErrorReason/invalidURLResource(error:key:url:)``; when its
        /// metadata is readable but its bytes are not, ``KingfisherError/CacheErrorReason/cannotLoadDataFromDisk(url:error:)``.
        private func intactContents(of fileURL: URL, key: String, now: Date) throws(KingfisherError)
            -> CacheFileContents?
        {
            let contents: CacheFileContents?
            do {
                contents = try CacheFileSystem.read(atPath: fileURL.path, buffers: readBuffers)
            } catch {
                var info = stat()
                guard stat(fileURL.path, &info) == 0 else {
                    guard config.fileManager.fileExists(atPath: fileURL.path) else { return nil }
                    throw .cacheError(reason: .invalidURLResource(error: error, key: key, url: fileURL))
                }
                throw .cacheError(reason: .cannotLoadDataFromDisk(url: fileURL, error: error))
            }
            guard let contents, contents.meta.expiresAt > now else { return nil }
            switch CacheFileIntegrity.verdict(for: contents.data, stored: contents.storedChecksum) {
            case .intact:
                return contents
            case .damaged(let reason):
                let removed = removeIfUnchanged(fileURL, identity: contents.meta.identity)
                logger?.warning(
                    "Removed a damaged cache file",
                    metadata: [
                        "kf.file": "\(fileURL.path)", "kf.reason": "\(reason)", "kf.removed": "\(removed)",
                    ])
                return nil
            }
        }

        /// Unlinks `url` if it is still the file with `identity`; whether it was removed.
        private func removeIfUnchanged(_ url: URL, identity: FileIdentity) -> Bool {
            guard let meta = CacheFileSystem.meta(atPath: url.path), meta.identity == identity else { return false }
            return (try? removeFile(at: url)) != nil
        }

        /// Whether an unexpired file is stored under `key`: one `stat`, no read.
        public func isCached(forKey key: String, forcedExtension: String? = nil) -> Bool {
            isCached(forKey: key, referenceDate: config.now(), forcedExtension: forcedExtension)
        }

        /// Whether a file stored under `key` is still alive at `referenceDate`.
        public func isCached(forKey key: String, referenceDate: Date, forcedExtension: String? = nil) -> Bool {
            let path = cacheFileURL(forKey: key, forcedExtension: forcedExtension).path
            guard let meta = CacheFileSystem.meta(atPath: path), meta.isRegularFile else { return false }
            return meta.expiresAt > referenceDate
        }

        /// Removes the file under `key`, if any.
        public func remove(forKey key: String, forcedExtension: String? = nil) throws(KingfisherError) {
            try removeFile(at: cacheFileURL(forKey: key, forcedExtension: forcedExtension))
        }

        /// Removes every file in the directory; the directory stays.
        ///
        /// Sub-directories are left alone: the storage never makes any, so they are not its files.
        public func removeAll() throws(KingfisherError) {
            for url in try contents() where CacheFileSystem.meta(atPath: url.path)?.isRegularFile != false {
                try removeFile(at: url)
            }
            state.withLock { $0.knownTotalSize = 0 }
        }

        /// The URL of the file for `key`, whether or not it exists.
        public func cacheFileURL(forKey key: String, forcedExtension: String? = nil) -> URL {
            let name = config.fileName(forKey: key, forcedExtension: forcedExtension)
            return directoryURL.appendingPathComponent(name, isDirectory: false)
        }

        /// The file name for `key` (the SHA-256 in hex by default).
        public func cacheFileName(forKey key: String, forcedExtension: String? = nil) -> String {
            config.fileName(forKey: key, forcedExtension: forcedExtension)
        }

        func prepareDirectory() throws(KingfisherError) {
            do {
                try config.fileManager.createDirectory(at: directoryURL, withIntermediateDirectories: true)
            } catch {
                throw .cacheError(reason: .cannotCreateDirectory(path: directoryURL.path, error: error))
            }
            state.withLock { $0.directoryReady = true }
        }

        /// Throws ``KingfisherError/CacheErrorReason/diskStorageIsNotReady(cacheURL:)`` while the directory that
        /// could not be created at initialisation is still missing; one `stat` in that state, nothing otherwise.
        private func checkDirectoryReady() throws(KingfisherError) {
            guard !state.withLock({ $0.directoryReady }) else { return }
            guard let meta = CacheFileSystem.meta(atPath: directoryURL.path), !meta.isRegularFile else {
                throw .cacheError(reason: .diskStorageIsNotReady(cacheURL: directoryURL))
            }
            state.withLock { $0.directoryReady = true }
        }

        func removeFile(at url: URL) throws(KingfisherError) {
            let size = CacheFileSystem.meta(atPath: url.path)?.size ?? 0
            do {
                if try CacheFileSystem.unlinkFile(atPath: url.path) { noteRemoval(size) }
            } catch {
                throw .cacheError(reason: .cannotRemoveCacheFile(fileURL: url, error: error))
            }
        }

        private func writeAtomically(
            _ data: Data, to url: URL, lastAccess: Date, expiresAt: Date, checksum: UInt32?
        ) throws {
            do {
                if state.withLock({ $0.writesUnnamedFiles }),
                    try CacheFileSystem.writeUnnamedFile(
                        atPath: url.path, inDirectory: directoryURL.path, data: data, lastAccess: lastAccess,
                        expiresAt: expiresAt, checksum: checksum)
                {
                    return
                }
            } catch {
                if CacheFileSystem.meta(atPath: directoryURL.path) == nil { throw POSIXErrorBox(code: ENOENT) }
                throw error
            }
            let temporary = directoryURL.appendingPathComponent(CacheTemporaryFile.makeName(), isDirectory: false)
            do {
                try CacheFileSystem.createFile(
                    atPath: temporary.path, data: data, lastAccess: lastAccess, expiresAt: expiresAt, checksum: checksum
                )
                try CacheFileSystem.rename(temporary.path, over: url.path)
            } catch {
                _ = try? CacheFileSystem.unlinkFile(atPath: temporary.path)
                if CacheFileSystem.meta(atPath: directoryURL.path) == nil { throw POSIXErrorBox(code: ENOENT) }
                throw error
            }
        }

        private func extendExpiration(of url: URL, meta: CacheFileMeta, now: Date, extending: ExpirationExtending) {
            let expiresAt: Date
            switch extending {
            case .none:
                return
            case .cacheTime:
                // The duration it was stored with is the gap between its last access and its expiration.
                expiresAt = now.addingTimeInterval(meta.expiresAt.timeIntervalSince(meta.lastAccess))
            case .expirationTime(let expiration):
                expiresAt = expiration.estimatedExpirationSince(now)
            }
            // Best effort: a read-only directory still serves reads.
            try? CacheFileSystem.setDates(atPath: url.path, lastAccess: now, expiresAt: expiresAt)
        }
    }
}

extension DiskStorage {
    /// What a disk cache holds, from ``Backend/summary()``.
    public struct Summary: Sendable, Hashable {
        /// Cached files.
        public var fileCount = 0
        /// Their total length in bytes.
        public var totalSize: UInt = 0
        /// Files whose expiration date has passed (removed by the next sweep or `removeExpiredValues()`).
        public var expiredCount = 0
        /// The expired files' total length in bytes.
        public var expiredSize: UInt = 0
        /// Temporary files of writes: in progress, or left by a process that was killed (removed when the
        /// storage is opened or swept).
        public var temporaryCount = 0
        /// Their total length in bytes.
        public var temporarySize: UInt = 0

        public init() {}
    }
}
