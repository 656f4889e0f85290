public import Foundation

extension DiskStorage {
    /// Where and how a ``DiskStorage/Backend`` keeps its files.
    public struct Config: Sendable {
        /// The cache's name; the directory is `com.onevcat.Kingfisher.ImageCache.<name>` under ``directory``.
        public let name: String

        /// The most bytes (sum of file sizes) the directory should hold; `0` means no limit.
        /// ``DiskStorage/Backend/removeSizeExceededValues()`` removes the least recently accessed files until the
        /// total is at most half of it. The storage never does so by itself, as in Kingfisher: an ``ImageCache``
        /// over it does, after a write takes the total over the limit and on its ``sweepInterval`` timer.
        ///
        /// - Note: Kingfisher's cache cleans when an app goes to the background or terminates; Linux has no such
        ///   events, so the cache cleans after writes and on a timer instead, off the caller's thread.
        public var sizeLimit: UInt

        /// How long a file lives when stored without its own expiration. `.days(7)` by default.
        public var expiration: StorageExpiration = .days(7)

        /// An extension for every cache file, e.g. `"png"`. `nil` by default.
        public var pathExtension: String? = nil

        /// Name files by the SHA-256 of their key (64 hex digits). `true` by default.
        ///
        /// - Note: Kingfisher hashes with MD5. With `false` the key itself is the file name, made safe: `/`, `%`,
        ///   control characters and a leading `.` are percent-escaped, and a name over 255 bytes falls back to the
        ///   hash, so no key can leave the directory (Kingfisher uses such keys unchanged).
        public var usesHashedFileName = true

        /// Append the key's own file extension (`"png"` of `".../a.png"`) to hashed names. `false` by default.
        public var autoExtAfterHashedFileName = false

        /// Builds the cache directory from the base ``directory`` and ``name``.
        /// `<directory>/com.onevcat.Kingfisher.ImageCache.<name>` by default.
        public var cachePathBlock: (@Sendable (_ directory: URL, _ cacheName: String) -> URL)! = {
            directory, cacheName in
            directory.appendingPathComponent(cacheName, isDirectory: true)
        }

        /// Seconds between the background sweeps of expired and size-exceeding files that an ``ImageCache`` over
        /// this storage runs. `600` by default; `0` turns the timer off. Read when the cache is created. Ours.
        public var sweepInterval: TimeInterval = 600

        /// How many disk reads and writes of the storage run at once on its threads (an ``ImageCache`` over it does
        /// all its disk work there): enough to keep a disk busy, few enough that a burst of lookups never piles up
        /// threads (a concurrent dispatch queue grows to 64 when its jobs block in the file system). `4` by default;
        /// values below 1 count as 1. Read when the storage is created. Ours.
        public var ioConcurrency = 4

        /// The clock that decides expiration and access order. `Date.init` by default; ours, so tests can move time.
        public var now: @Sendable () -> Date = { Date() }

        let fileManager: FileManager
        let directory: URL?

        /// - Parameters:
        ///   - name: the cache's name; must not be empty.
        ///   - sizeLimit: see ``sizeLimit``.
        ///   - fileManager: the file manager that creates the directory, and that is asked whether a file whose
        ///     metadata cannot be read exists (as in Kingfisher). `.default` by default.
        ///   - directory: the base directory; the user's caches directory (`$XDG_CACHE_HOME` or `~/.cache` on
        ///     Linux) by default.
        public init(name: String, sizeLimit: UInt, fileManager: FileManager = .default, directory: URL? = nil) {
            self.name = name
            self.sizeLimit = sizeLimit
            self.fileManager = fileManager
            self.directory = directory
        }

        /// The directory this configuration stores files in.
        var directoryURL: URL {
            let base =
                directory
                ?? fileManager.urls(for: .cachesDirectory, in: .userDomainMask).first
                ?? URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
            return cachePathBlock(base, "com.onevcat.Kingfisher.ImageCache.\(name)")
        }
    }
}
