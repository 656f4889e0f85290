import Dispatch
public import Foundation
public import Logging
import KingfisherLocking

/// A two-layer image cache: decoded images in memory (``MemoryStorage``) over encoded files on disk
/// (``DiskStorage``).
///
/// The processed image of key `K` under a processor whose identifier is `P` is stored under `K@P`; the default
/// processor's identifier is empty, so its images live under plain `K`. Memory lookups run on the caller's
/// thread (no I/O); every callback and `async` API does disk I/O and decoding on the cache's own queue, never on
/// the caller's thread. Stores are ordered: a lookup started after a store has begun sees it.
///
/// ```swift
/// let cache = try ImageCache(name: "thumbs", cacheDirectoryURL: URL(fileURLWithPath: "/var/cache/app"))
/// try await cache.store(image, original: data, forKey: url.absoluteString)
/// let result = try await cache.retrieveImage(forKey: url.absoluteString)  // .memory(image)
/// ```
///
/// - Note: Unlike Kingfisher on Apple platforms, callbacks default to ``CallbackQueue/untouch`` (no main run
///   loop is needed), the disk size limit is enforced after writes and on a timer (Kingfisher cleans on app
///   lifecycle events), and a file that no longer decodes is removed on the lookup that finds it. Learn about disk
///   sweeps with ``diskCacheCleanedEvents()`` or `Notification.Name.KingfisherDidCleanDiskCache`.
public final class ImageCache: Sendable {
    /// The shared cache, named `"default"`, in the user's caches directory.
    public static let `default` = ImageCache(name: "default")

    /// The memory layer. Its cost limit is a quarter of the physical memory by default.
    public let memoryStorage: MemoryStorage.Backend<KFCrossPlatformImage>

    /// The disk layer. No size limit and `.days(7)` expiration by default.
    public let diskStorage: DiskStorage.Backend<Data>

    /// Where the cache reports what callers may not see (its background activity, in AsyncHTTPClient's words), at
    /// `warning`: disk writes that failed (also returned to whoever waits for them), disk reads that failed (read as
    /// misses), damaged or undecodable files it removed. `nil` (nothing logged) by default, as AsyncHTTPClient does.
    /// Ours.
    public var logger: Logger? {
        get { diskStorage.logger }
        set { diskStorage.logger = newValue }
    }

    /// Where disk I/O runs: the disk storage's threads (``DiskStorage/Config/ioConcurrency``); shared jobs for reads
    /// and writes, exclusive ones for removals and sweeps. The retrievals' decoding and encoding run on a
    /// ``ImageWorkers``, never here.
    var io: DiskIO { diskStorage.io }
    /// Where the cache's own callers' disk hits are decoded and their disk bytes encoded (a manager's retrievals
    /// bring the manager's stage): threads of the cache's own, started on first use.
    let workers = ImageWorkers(threads: ImageEngine.Configuration.default.decodeConcurrency)
    private let engineConfiguration = Locked(ImageEngine.Configuration.default)

    /// The decode limits and concurrency of disk hits and disk encodes made for this cache's own callers (a
    /// manager's retrievals bring the manager's): ``ImageEngine/Configuration/default`` as it was when the cache
    /// was made, by default. Ours.
    public var engine: ImageEngine.Configuration {
        get { engineConfiguration.withLock { $0 } }
        set {
            engineConfiguration.withLock { $0 = newValue }
            workers.threads = newValue.decodeConcurrency
        }
    }

    /// Disk hits being read and decoded: concurrent lookups of one entry share one read and one decode.
    let diskReads: SharedWork<DiskReadKey, Result<KFCrossPlatformImage?, KingfisherError>>
    /// The cache's metrics (hits and misses per tier, failed writes, decode and encode times), made with the metrics
    /// factory current when the cache is created.
    let metrics: CacheMetrics
    /// The automatic disk sweeps and their listeners.
    let sweeper: DiskSweeper
    /// The HTTP cache records of its network entries (see ``HTTPCachePolicy``).
    let httpRecords = HTTPRecordStore()

    /// Builds the disk cache directory from a base directory and the cache's directory name.
    public typealias DiskCachePathClosure = @Sendable (_ directory: URL, _ cacheName: String) -> URL

    /// A cache over the given storages.
    public init(memoryStorage: MemoryStorage.Backend<KFCrossPlatformImage>, diskStorage: DiskStorage.Backend<Data>) {
        self.memoryStorage = memoryStorage
        self.diskStorage = diskStorage
        let metrics = CacheMetrics(cacheName: diskStorage.config.name)
        self.metrics = metrics
        self.diskReads = SharedWork { metrics.countCoalescedRead() }
        self.sweeper = DiskSweeper()
        startPeriodicSweeps()
    }

    /// A cache named `name` in the user's caches directory. A directory that cannot be created now makes disk
    /// writes fail with an error (and retry creating it) rather than failing here.
    /// - Precondition: `name` is not empty.
    public convenience init(name: String) {
        precondition(!name.isEmpty, "ImageCache needs a non-empty name.")
        let disk = DiskStorage.Backend<Data>(
            noThrowConfig: DiskStorage.Config(name: name, sizeLimit: 0), creatingDirectory: true)
        self.init(memoryStorage: Self.defaultMemoryStorage(), diskStorage: disk)
    }

    /// A cache named `name` under `cacheDirectoryURL` (the user's caches directory when `nil`).
    /// - Parameter diskCachePathClosure: builds the final directory from the base and
    ///   `com.onevcat.Kingfisher.ImageCache.<name>`; appends the latter by default.
    /// - Throws: ``KingfisherError/CacheErrorReason/cannotCreateDirectory(path:error:)``.
    /// - Precondition: `name` is not empty.
    public convenience init(
        name: String, cacheDirectoryURL: URL?, diskCachePathClosure: DiskCachePathClosure? = nil
    ) throws(KingfisherError) {
        precondition(!name.isEmpty, "ImageCache needs a non-empty name.")
        var config = DiskStorage.Config(name: name, sizeLimit: 0, directory: cacheDirectoryURL)
        if let diskCachePathClosure { config.cachePathBlock = diskCachePathClosure }
        let disk = try DiskStorage.Backend<Data>(config: config)
        self.init(memoryStorage: Self.defaultMemoryStorage(), diskStorage: disk)
    }

    private static func defaultMemoryStorage() -> MemoryStorage.Backend<KFCrossPlatformImage> {
        let quarter = ProcessInfo.processInfo.physicalMemory / 4
        let limit = quarter > UInt64(Int.max) ? Int.max : Int(quarter)
        return MemoryStorage.Backend(config: MemoryStorage.Config(totalCostLimit: limit))
    }

    // MARK: - Keys and lookups without decoding

    /// The key an image of `key` processed by `processorIdentifier` is stored under: `key@processorIdentifier`,
    /// or `key` when the identifier is empty. Ours (Kingfisher keeps it internal).
    public static func computedKey(forKey key: String, processorIdentifier: String) -> String {
        processorIdentifier.isEmpty ? key : "\(key)@\(processorIdentifier)"
    }

    /// Where the image is cached: `.memory` first, then `.disk`, else `.none`. Decodes nothing; at most one
    /// `stat` on the caller's thread.
    public func imageCachedType(
        forKey key: String, processorIdentifier: String = DefaultImageProcessor.default.identifier,
        forcedExtension: String? = nil
    ) -> CacheType {
        let computed = Self.computedKey(forKey: key, processorIdentifier: processorIdentifier)
        if memoryStorage.isCached(forKey: computed) { return .memory }
        if diskStorage.isCached(forKey: computed, forcedExtension: forcedExtension) { return .disk }
        return .none
    }

    /// Whether the image is in memory or on disk. Decodes nothing.
    public func isCached(
        forKey key: String, processorIdentifier: String = DefaultImageProcessor.default.identifier,
        forcedExtension: String? = nil
    ) -> Bool {
        imageCachedType(forKey: key, processorIdentifier: processorIdentifier, forcedExtension: forcedExtension)
            .cached
    }

    /// The disk file name of the image: the SHA-256 of the computed key in hex, by default.
    public func hash(
        forKey key: String, processorIdentifier: String = DefaultImageProcessor.default.identifier,
        forcedExtension: String? = nil
    ) -> String {
        let computed = Self.computedKey(forKey: key, processorIdentifier: processorIdentifier)
        return diskStorage.cacheFileName(forKey: computed, forcedExtension: forcedExtension)
    }

    /// The path of the image's disk file, whether or not it exists.
    public func cachePath(
        forKey key: String, processorIdentifier: String = DefaultImageProcessor.default.identifier,
        forcedExtension: String? = nil
    ) -> String {
        cacheFileURL(forKey: key, processorIdentifier: processorIdentifier, forcedExtension: forcedExtension).path
    }

    /// The URL of the image's disk file when it exists and has not expired, else `nil`.
    public func cacheFileURLIfOnDisk(
        forKey key: String, processorIdentifier: String = DefaultImageProcessor.default.identifier,
        forcedExtension: String? = nil
    ) -> URL? {
        let computed = Self.computedKey(forKey: key, processorIdentifier: processorIdentifier)
        guard diskStorage.isCached(forKey: computed, forcedExtension: forcedExtension) else { return nil }
        return diskStorage.cacheFileURL(forKey: computed, forcedExtension: forcedExtension)
    }

    func cacheFileURL(forKey key: String, processorIdentifier: String, forcedExtension: String?) -> URL {
        let computed = Self.computedKey(forKey: key, processorIdentifier: processorIdentifier)
        return diskStorage.cacheFileURL(forKey: computed, forcedExtension: forcedExtension)
    }

    /// The total cost of the images in memory (their decoded bytes).
    public var memoryStorageCacheCost: Int { memoryStorage.totalCacheCost() }
}
