public import Foundation
import KingfisherLocking

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
/// one `stat`, on the cache's I/O queue with `.asyncCacheTypeCheck`, and a file found on disk is read once on that
/// queue to check it holds what was stored (``DiskStorage/Backend/isIntact(forKey:forcedExtension:)``): a damaged
/// one is removed and its source loaded again. Each other source goes through ``KingfisherManager``, so the options
/// (processor, retry strategy...) apply as there.
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
        var tasks: [Int: DownloadTask] = [:]
        var skipped: [Source] = []
        var failed: [Source] = []
        var completed: [Source] = []
        var started = false
        var stopped = false
        var finished = false
    }

    private enum Outcome {
        case skipped, failed, completed
    }

    private typealias Snapshot = (skipped: [Source], failed: [Source], completed: [Source])

    private let sources: [Source]
    private let options: KingfisherParsedOptionsInfo
    private let manager: KingfisherManager
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
        let (batch, done) = state.withLock { state -> ([Int], Snapshot?) in
            guard !state.started, !state.stopped else { return ([], nil) }
            state.started = true
            if sources.isEmpty { return ([], complete(&state)) }
            return (Self.takeNext(&state, count: state.maxConcurrentDownloads, total: sources.count), nil)
        }
        if let done { report(progress: nil, completion: done) }
        for index in batch { begin(index) }
    }

    /// Cancels the loads in flight and starts no more. Each cancelled load is reported as failed through the
    /// progress block; then the completion handler runs once, with the sources that never started added to the
    /// failed ones (as Kingfisher documents). Stopping before ``start()`` completes at once with every source
    /// failed; stopping after the completion does nothing.
    public func stop() {
        let (tasks, done) = state.withLock { state -> ([DownloadTask], Snapshot?) in
            guard !state.stopped, !state.finished else { return ([], nil) }
            state.stopped = true
            guard state.running.isEmpty else { return (Array(state.tasks.values), nil) }
            return ([], complete(&state))
        }
        for task in tasks { task.cancel() }
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

    private static func takeNext(_ state: inout State, count: Int, total: Int) -> [Int] {
        var batch: [Int] = []
        while batch.count < count, state.next < total {
            batch.append(state.next)
            state.running.insert(state.next)
            state.next += 1
        }
        return batch
    }

    /// Checks whether the source is cached (on the cache's I/O queue with `asyncCacheTypeCheck`), then loads it.
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
        var internalOptions = options
        internalOptions.callbackQueue = .untouch
        switch cached {
        case .memory:
            finish(index, .skipped)
        case .disk where internalOptions.alsoPrefetchToMemory:
            cache.retrieveImage(forKey: source.cacheKey, options: internalOptions) { result in
                // A file that no longer decodes was removed by the lookup: load the source again.
                guard case .success(let found) = result, found.image != nil else {
                    self.load(index, cached: .none, cache: cache)
                    return
                }
                self.finish(index, .skipped)
            }
        case .disk:
            verifyOnDisk(source, cache: cache) { intact in
                if intact { self.finish(index, .skipped) } else { self.load(index, cached: .none, cache: cache) }
            }
        case .none:
            // Waits for the disk write, so a write that fails counts the source as failed.
            internalOptions.waitForCache = true
            let task = manager.retrieveImage(with: source, parsedOptions: internalOptions) { result in
                let stored = (try? result.get()).map { $0.diskStoreError == nil } ?? false
                self.finish(index, stored ? .completed : .failed)
            }
            guard let task else { return }
            let cancelNow = state.withLock { state -> Bool in
                guard state.running.contains(index) else { return false }
                state.tasks[index] = task
                return state.stopped
            }
            if cancelNow { task.cancel() }
        }
    }

    /// Whether the file the source is cached in still holds what was stored (a damaged one is removed), read on
    /// the cache's I/O queue.
    private func verifyOnDisk(_ source: Source, cache: ImageCache, then: @escaping @Sendable (Bool) -> Void) {
        let computed = ImageCache.computedKey(
            forKey: source.cacheKey, processorIdentifier: options.processor.identifier)
        let forcedExtension = options.forcedExtension
        cache.ioQueue.async {
            then(cache.diskStorage.isIntact(forKey: computed, forcedExtension: forcedExtension))
        }
    }

    private func finish(_ index: Int, _ outcome: Outcome) {
        let (batch, snapshot, finished) = state.withLock { state -> ([Int], Snapshot?, Snapshot?) in
            guard state.running.remove(index) != nil else { return ([], nil, nil) }
            state.tasks[index] = nil
            switch outcome {
            case .skipped: state.skipped.append(sources[index])
            case .failed: state.failed.append(sources[index])
            case .completed: state.completed.append(sources[index])
            }
            let batch = state.stopped ? [] : Self.takeNext(&state, count: 1, total: sources.count)
            let progress = (state.skipped, state.failed, state.completed)
            let done = state.running.isEmpty && (state.stopped || state.next == sources.count) && !state.finished
            return (batch, progress, done ? complete(&state) : nil)
        }
        guard let snapshot else { return }
        report(progress: snapshot, completion: finished)
        for next in batch { begin(next) }
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
