public import Foundation
import KingfisherLocking
import Logging

/// Reports a prefetch so far: sources skipped because they were cached, sources that failed, sources loaded.
public typealias PrefetcherSourceProgressBlock =
    @Sendable (_ skippedSources: [Source], _ failedSources: [Source], _ completedSources: [Source]) -> Void

/// Reports the end of a prefetch: skipped, failed and loaded sources.
public typealias PrefetcherSourceCompletionHandler =
    @Sendable (_ skippedSources: [Source], _ failedSources: [Source], _ completedSources: [Source]) -> Void

/// ``PrefetcherSourceProgressBlock`` for resources.
public typealias PrefetcherProgressBlock =
    @Sendable (
        _ skippedResources: [any Resource], _ failedResources: [any Resource], _ completedResources: [any Resource]
    ) -> Void

/// ``PrefetcherSourceCompletionHandler`` for resources.
public typealias PrefetcherCompletionHandler =
    @Sendable (
        _ skippedResources: [any Resource], _ failedResources: [any Resource], _ completedResources: [any Resource]
    ) -> Void

/// Loads images into the cache ahead of use, a few at a time.
///
/// ```swift
/// let prefetcher = ImagePrefetcher(urls: urls, options: [.processor(DownsamplingImageProcessor(size: thumb))]) {
///     skipped, failed, completed in print("\(completed.count) loaded, \(failed.count) failed")
/// }
/// prefetcher.start()
/// ```
///
/// A source already cached under the options' processor is skipped without decoding (with
/// `.alsoPrefetchToMemory`, one on disk is read into memory; with `.forceRefresh` nothing is skipped); the lookup is
/// one `stat`, on the cache's I/O threads with `.asyncCacheTypeCheck`, and a file found on disk is read once on that
/// queue to check it holds what was stored (``DiskStorage/Backend/isIntact(forKey:forcedExtension:)``): a damaged
/// one is removed and its source loaded again. Each other source goes through ``KingfisherManager``, so the options
/// (processor, retry strategy...) apply as there.
///
/// Ours: with a serializer that keeps original data (``DefaultCacheSerializer/preferCacheOriginalData``), the
/// default processor and nothing asked of the memory cache, a source is not decoded at all: its bytes are
/// downloaded (or read from its provider), their header is checked (a format that decodes here, within
/// ``ImageEngine/maximumPixelCount`` and ``ImageEngine/maximumFrameCount``), and they are written to the disk
/// cache as the manager would write them, so a later retrieval finds them there (a disk hit). Kingfisher decodes
/// each image and keeps it in memory too; warming a disk cache with photos that way costs a full decode each.
/// Bytes that fail the check are not stored; the target cache's ``ImageCache/logger`` gets why (as for any source
/// that fails to load). Options that need the manager's other steps (`.alternativeSources`, `.lowDataMode`,
/// `.onlyFromCache`) keep the manager's path.
///
/// - Note: Unlike Kingfisher, a load waits for its disk write (as with `.waitForCache`) and counts as failed when the
///   write failed: a prefetch exists to fill the cache, so one that stored nothing has not completed.
///
/// The progress block runs once per source as it ends (skipped, failed or completed), with the lists so far; the
/// completion handler runs once, after the last. Both run on the options' callback queue (`.untouch` by default,
/// Kingfisher: the main queue).
public final class ImagePrefetcher: Sendable {
    private struct State {
        var maxConcurrentDownloads = 5
        var next = 0
        var running: Set<Int> = []
        /// How to cancel each load in flight.
        var cancellers: [Int: @Sendable () -> Void] = [:]
        var skipped: [Source] = []
        var failed: [Source] = []
        var completed: [Source] = []
        var started = false
        var stopped = false
        var finished = false
        /// Whether a thread is in ``fill()``'s loop beginning sources.
        var filling = false
    }

    enum Outcome {
        case skipped, failed, completed
    }

    private typealias Snapshot = (skipped: [Source], failed: [Source], completed: [Source])

    let sources: [Source]
    let options: KingfisherParsedOptionsInfo
    let manager: KingfisherManager
    private let progressBlock: PrefetcherSourceProgressBlock?
    private let completionHandler: PrefetcherSourceCompletionHandler?
    private let state = Locked(State())

    /// A prefetcher for `sources`.
    /// - Parameters:
    ///   - options: added after the manager's default options. `nil` by default.
    ///   - manager: the manager that retrieves; ``KingfisherManager/shared`` by default (ours).
    public init(
        sources: [Source], options: KingfisherOptionsInfo? = nil,
        progressBlock: PrefetcherSourceProgressBlock? = nil,
        completionHandler: PrefetcherSourceCompletionHandler? = nil, manager: KingfisherManager = .shared
    ) {
        self.sources = sources
        self.manager = manager
        self.options = manager.parsedOptions(options)
        self.progressBlock = progressBlock
        self.completionHandler = completionHandler
    }

    /// A prefetcher for `resources` (file URLs are read from disk). The blocks list the resources.
    public convenience init(
        resources: [any Resource], options: KingfisherOptionsInfo? = nil,
        progressBlock: PrefetcherProgressBlock? = nil, completionHandler: PrefetcherCompletionHandler? = nil,
        manager: KingfisherManager = .shared
    ) {
        // A file URL's source is a provider; it is listed again as the file URL's resource.
        let resourcesOf: @Sendable ([Source]) -> [any Resource] = { sources in
            sources.compactMap { source -> (any Resource)? in
                source.asResource ?? source.url.map { KF.ImageResource(downloadURL: $0, cacheKey: source.cacheKey) }
            }
        }
        var sourceProgress: PrefetcherSourceProgressBlock?
        if let progressBlock {
            sourceProgress = { progressBlock(resourcesOf($0), resourcesOf($1), resourcesOf($2)) }
        }
        var sourceCompletion: PrefetcherSourceCompletionHandler?
        if let completionHandler {
            sourceCompletion = { completionHandler(resourcesOf($0), resourcesOf($1), resourcesOf($2)) }
        }
        self.init(
            sources: resources.map { $0.convertToSource() }, options: options, progressBlock: sourceProgress,
            completionHandler: sourceCompletion, manager: manager)
    }

    /// A prefetcher for `urls`.
    public convenience init(
        urls: [URL], options: KingfisherOptionsInfo? = nil, progressBlock: PrefetcherProgressBlock? = nil,
        completionHandler: PrefetcherCompletionHandler? = nil, manager: KingfisherManager = .shared
    ) {
        self.init(
            resources: urls, options: options, progressBlock: progressBlock, completionHandler: completionHandler,
            manager: manager)
    }

    /// How many sources load at the same time. `5` by default; set it before ``start()``.
    public var maxConcurrentDownloads: Int {
        get { state.withLock { $0.maxConcurrentDownloads } }
        set { state.withLock { $0.maxConcurrentDownloads = max(1, newValue) } }
    }

    /// Starts prefetching; later calls, and calls after ``stop()``, do nothing.
    public func start() {
        let (starts, done) = state.withLock { state -> (Bool, Snapshot?) in
            guard !state.started, !state.stopped else { return (false, nil) }
            state.started = true
            if sources.isEmpty { return (false, complete(&state)) }
            return (true, nil)
        }
        if let done { report(progress: nil, completion: done) }
        if starts { fill() }
    }

    /// Cancels the loads in flight and starts no more. Each cancelled load is reported as failed through the
    /// progress block; then the completion handler runs once, with the sources that never started added to the
    /// failed ones (as Kingfisher documents). Stopping before ``start()`` completes at once with every source
    /// failed; stopping after the completion does nothing.
    public func stop() {
        let (cancellers, done) = state.withLock { state -> ([@Sendable () -> Void], Snapshot?) in
            guard !state.stopped, !state.finished else { return ([], nil) }
            state.stopped = true
            guard state.running.isEmpty else { return (Array(state.cancellers.values), nil) }
            return ([], complete(&state))
        }
        for cancel in cancellers { cancel() }
        if let done { report(progress: nil, completion: done) }
    }

    /// Marks the prefetch finished; after a stop, the sources never started count as failed.
    private func complete(_ state: inout State) -> Snapshot {
        state.finished = true
        if state.stopped {
            state.failed.append(contentsOf: sources[state.next...])
            state.next = sources.count
        }
        return (state.skipped, state.failed, state.completed)
    }

    /// Begins sources while fewer than ``maxConcurrentDownloads`` run. One thread at a time runs the loop: a load
    /// that ends while it runs (a cached source ends inside ``begin(_:)``, on this very thread) only frees its
    /// slot, and the loop takes the next source. So the stack stays flat however many sources in a row are
    /// cached, where beginning the next source from ``finish(_:_:)`` would nest one level per source.
    private func fill() {
        let enters = state.withLock { state -> Bool in
            guard !state.filling else { return false }
            state.filling = true
            return true
        }
        guard enters else { return }
        // The check for a free slot and the exit happen under one lock, so a slot freed by another thread
        // between them is either seen here or finds `filling` off and fills it itself.
        while let index = state.withLock({ state -> Int? in
            guard !state.stopped, !state.finished, state.next < sources.count,
                state.running.count < state.maxConcurrentDownloads
            else {
                state.filling = false
                return nil
            }
            defer { state.next += 1 }
            state.running.insert(state.next)
            return state.next
        }) {
            begin(index)
        }
    }

    /// Checks whether the source is cached (on the cache's I/O threads with `asyncCacheTypeCheck`), then loads it.
    private func begin(_ index: Int) {
        let key = sources[index].cacheKey
        let cache = options.targetCache ?? manager.cache
        let identifier = options.processor.identifier
        let forcedExtension = options.forcedExtension
        guard !options.forceRefresh else {
            // As in Kingfisher: a forced refresh loads every source, cached or not.
            load(index, cached: .none, cache: cache)
            return
        }
        guard options.asyncCacheTypeCheck else {
            let cached = cache.imageCachedType(
                forKey: key, processorIdentifier: identifier, forcedExtension: forcedExtension)
            load(index, cached: cached, cache: cache)
            return
        }
        cache.imageCachedTypeAsync(forKey: key, processorIdentifier: identifier, forcedExtension: forcedExtension) {
            self.load(index, cached: $0, cache: cache)
        }
    }

    private func load(_ index: Int, cached: CacheType, cache: ImageCache) {
        let source = sources[index]
        let policy = options.httpCachePolicy ?? manager.httpCachePolicy
        if cached.cached, case .network = source, policy.followsHeaders {
            // Following HTTP caching, a cached source counts as prefetched only while its record says fresh;
            // otherwise the manager revalidates it (a 304 keeps the entry) or downloads it again.
            let identifier = options.processor.identifier
            let decide: @Sendable (HTTPCacheRecord?) -> Void = { record in
                let now = cache.diskStorage.config.now()
                if record?.state(ofVariant: identifier, at: now, policy: policy) == .fresh {
                    self.loadCached(index, cached: cached, cache: cache)
                } else if self.storesOriginalData {
                    self.loadOriginalData(index)
                } else {
                    self.retrieve(index)
                }
            }
            // A record not in memory is read on the cache's I/O threads, as the check for the entry was.
            if let remembered = cache.httpRecords.rememberedRecord(forKey: source.cacheKey) {
                decide(remembered)
            } else {
                cache.io.submit { decide(cache.httpRecords.loadRecord(forKey: source.cacheKey, in: cache)) }
            }
            return
        }
        loadCached(index, cached: cached, cache: cache)
    }

    /// Skips a cached source (reading a disk entry into memory with `.alsoPrefetchToMemory`, and checking it is
    /// intact otherwise), or loads one that is not cached.
    private func loadCached(_ index: Int, cached: CacheType, cache: ImageCache) {
        let source = sources[index]
        var internalOptions = options
        internalOptions.callbackQueue = .untouch
        switch cached {
        case .memory:
            finish(index, .skipped)
        case .disk where internalOptions.alsoPrefetchToMemory:
            cache.retrieveImage(forKey: source.cacheKey, options: internalOptions) { result in
                // A file that no longer decodes was removed by the lookup: load the source again.
                guard case .success(let found) = result, found.image != nil else {
                    self.loadCached(index, cached: .none, cache: cache)
                    return
                }
                self.finish(index, .skipped)
            }
        case .disk:
            verifyOnDisk(source, cache: cache) { intact in
                if intact { self.finish(index, .skipped) } else { self.loadCached(index, cached: .none, cache: cache) }
            }
        case .none where storesOriginalData:
            loadOriginalData(index)
        case .none:
            retrieve(index)
        }
    }

    /// Loads a source through the manager (download or provider, decode, processing, memory and disk).
    func retrieve(_ index: Int) {
        let source = sources[index]
        var internalOptions = options
        internalOptions.callbackQueue = .untouch
        // Waits for the disk write, so a write that fails counts the source as failed.
        internalOptions.waitForCache = true
        let task = manager.retrieveImage(with: source, parsedOptions: internalOptions) { result in
            switch result {
            case .success(let value):
                self.finish(index, value.diskStoreError == nil ? .completed : .failed)
            case .failure(let error):
                self.fail(index, error)
            }
        }
        if let task { register(index, cancel: { task.cancel() }) }
    }

    /// Keeps how to cancel the load of a source in flight, for ``stop()``; cancels at once after a stop.
    func register(_ index: Int, cancel: @escaping @Sendable () -> Void) {
        let cancelNow = state.withLock { state -> Bool in
            guard state.running.contains(index) else { return false }
            state.cancellers[index] = cancel
            return state.stopped
        }
        if cancelNow { cancel() }
    }

    /// Ends a source's load as failed, telling the target cache's logger why (the blocks list sources only).
    func fail(_ index: Int, _ error: KingfisherError) {
        let cache = options.targetCache ?? manager.cache
        cache.logger?.warning(
            "A prefetched source was not loaded",
            metadata: [
                "kf.key": "\(sources[index].cacheKey)", "kf.error": .error(error),
            ])
        finish(index, .failed)
    }

    /// Whether the file the source is cached in still holds what was stored (a damaged one is removed), read on
    /// the cache's I/O threads.
    private func verifyOnDisk(_ source: Source, cache: ImageCache, then: @escaping @Sendable (Bool) -> Void) {
        let computed = ImageCache.computedKey(
            forKey: source.cacheKey, processorIdentifier: options.processor.identifier)
        let forcedExtension = options.forcedExtension
        cache.io.submit { then(cache.diskStorage.isIntact(forKey: computed, forcedExtension: forcedExtension)) }
    }

    /// Records how a source ended, reports it, and frees its slot for the next source.
    func finish(_ index: Int, _ outcome: Outcome) {
        let (snapshot, finished) = state.withLock { state -> (Snapshot?, Snapshot?) in
            guard state.running.remove(index) != nil else { return (nil, nil) }
            state.cancellers[index] = nil
            switch outcome {
            case .skipped: state.skipped.append(sources[index])
            case .failed: state.failed.append(sources[index])
            case .completed: state.completed.append(sources[index])
            }
            let progress = (state.skipped, state.failed, state.completed)
            let done = state.running.isEmpty && (state.stopped || state.next == sources.count) && !state.finished
            return (progress, done ? complete(&state) : nil)
        }
        guard let snapshot else { return }
        // The snapshot's lists share their storage with the state's until one of them changes (copy on write).
        // Held until fill() has taken the state lock, they keep another thread's finish() from appending in place
        // before that lock: the progress block's reads then come before the append by a lock ThreadSanitizer sees,
        // not only by the reference count, which lives in the uninstrumented Swift runtime. (With a callback queue
        // that runs the block elsewhere, the block's own copy is released there; kf runs it in place.)
        withExtendedLifetime(snapshot) {
            report(progress: snapshot, completion: finished)
            fill()
        }
    }

    /// One progress report (a source finished), then the completion when the prefetch has ended.
    private func report(progress: Snapshot?, completion: Snapshot?) {
        let queue = options.callbackQueue
        if let progressBlock, let progress {
            queue.execute { progressBlock(progress.skipped, progress.failed, progress.completed) }
        }
        if let completionHandler, let completion {
            queue.execute { completionHandler(completion.skipped, completion.failed, completion.completed) }
        }
    }
}
