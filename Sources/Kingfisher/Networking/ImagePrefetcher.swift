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
/// Kingfisher: the main queue), handed to it one at a time, in the order the sources ended.
///
/// A prefetch is one task: it takes the sources in order, up to ``maxConcurrentDownloads`` at a time, each a child
/// task that asks the cache and then the manager's pipeline (its `async` retrieval); ``stop()`` cancels that task.
public final class ImagePrefetcher: Sendable {
    private struct State {
        var maxConcurrentDownloads = 5
        /// What bounds the loads in flight, while the prefetch runs.
        var limiter: Limiter?
        /// The prefetch, while it runs: what ``ImagePrefetcher/stop()`` cancels.
        var run: Task<Void, Never>?
        var started = false
        var stopped = false
        var finished = false
    }

    enum Outcome: Sendable {
        case skipped, failed, completed
    }

    /// The sources so far, by how they ended.
    struct Lists: Sendable {
        var skipped: [Source] = []
        var failed: [Source] = []
        var completed: [Source] = []

        mutating func append(_ source: Source, _ outcome: Outcome) {
            switch outcome {
            case .skipped: skipped.append(source)
            case .failed: failed.append(source)
            case .completed: completed.append(source)
            }
        }
    }

    /// What the prefetch's child tasks hand back: a permit to start the next source (`nil`: the prefetch was
    /// stopped while it waited), or how a source ended.
    private enum Event: Sendable {
        case permit(Limiter.Permit?)
        case ended(index: Int, Outcome)
    }

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

    /// How many sources load at the same time. `5` by default; set it before ``start()`` (a change while the
    /// prefetch runs applies as loads end).
    public var maxConcurrentDownloads: Int {
        get { state.withLock { $0.maxConcurrentDownloads } }
        set {
            let limit = max(1, newValue)
            let running = state.withLock { state in
                state.maxConcurrentDownloads = limit
                return state.limiter
            }
            running?.limit = limit
        }
    }

    /// Starts prefetching; later calls, and calls after ``stop()``, do nothing.
    public func start() {
        let empty = state.withLock { state -> Bool in
            guard !state.started, !state.stopped else { return false }
            state.started = true
            guard !sources.isEmpty else {
                state.finished = true
                return true
            }
            let limiter = Limiter(limit: state.maxConcurrentDownloads)
            state.limiter = limiter
            // The one task of the prefetch; its value, the lists, goes to the completion handler.
            let completion = completionHandler.map { handler in
                { @Sendable (lists: Lists) in handler(lists.skipped, lists.failed, lists.completed) }
            }
            state.run = CallbackEdge(on: options.callbackQueue, completion).start {
                await self.prefetch(limitedBy: limiter)
            }
            return false
        }
        if empty { complete(Lists()) }
    }

    /// Cancels the loads in flight and starts no more. Each cancelled load is reported as failed through the
    /// progress block; then the completion handler runs once, with the sources that never started added to the
    /// failed ones (as Kingfisher documents). Stopping before ``start()`` completes at once with every source
    /// failed; stopping after the completion does nothing.
    public func stop() {
        let (run, completesNow) = state.withLock { state -> (Task<Void, Never>?, Bool) in
            guard !state.stopped, !state.finished else { return (nil, false) }
            state.stopped = true
            guard state.started else {
                state.finished = true
                return (nil, true)
            }
            return (state.run, false)
        }
        run?.cancel()
        if completesNow { complete(Lists(failed: sources)) }
    }

    /// The prefetch: the sources in order, each started once the limiter gives a permit, in a child task that
    /// gives the permit back when the source has ended; each end is reported here, one at a time. Cancelled
    /// (``stop()``), it starts no more sources, and those never started count as failed.
    private func prefetch(limitedBy limiter: Limiter) async -> Lists {
        let (lists, started) = await withTaskGroup(of: Event.self) { group -> (Lists, Int) in
            var lists = Lists()
            var next = 0
            group.addTask { .permit(try? await limiter.acquire()) }
            while let event = await group.next() {
                switch event {
                case .permit(let permit?) where !Task.isCancelled:
                    // Sources in memory already are skipped here, at once: no task, no wait for each.
                    while next < sources.count, isInMemoryNow(sources[next]) {
                        lists.append(sources[next], .skipped)
                        report(progress: lists)
                        next += 1
                    }
                    guard next < sources.count else {
                        permit.release()
                        continue
                    }
                    let index = next
                    next += 1
                    group.addTask {
                        defer { permit.release() }
                        return .ended(index: index, await self.prefetch(index))
                    }
                    if next < sources.count { group.addTask { .permit(try? await limiter.acquire()) } }
                case .permit(let permit):
                    // Stopped while it waited: no source starts after a stop.
                    permit?.release()
                case .ended(let index, let outcome):
                    lists.append(sources[index], outcome)
                    report(progress: lists)
                }
            }
            return (lists, next)
        }
        var final = lists
        final.failed.append(contentsOf: sources[started...])
        state.withLock { state in
            state.finished = true
            state.run = nil
            state.limiter = nil
        }
        return final
    }

    /// One source: skipped when the cache has it as the options want it, otherwise loaded.
    private func prefetch(_ index: Int) async -> Outcome {
        if !options.forceRefresh, await isCached(sources[index]) { return .skipped }
        return storesOriginalData ? await loadOriginalData(index) : await retrieve(index)
    }

    /// Whether `source` is in the memory cache under the options' processor (and fresh, following HTTP caching, by
    /// a record in memory), found without waiting for anything: such a source is skipped by the run itself.
    private func isInMemoryNow(_ source: Source) -> Bool {
        guard !options.forceRefresh else { return false }
        let cache = options.targetCache ?? manager.cache
        let identifier = options.processor.identifier
        let computed = ImageCache.computedKey(forKey: source.cacheKey, processorIdentifier: identifier)
        guard cache.memoryStorage.isCached(forKey: computed) else { return false }
        return isFreshWithoutReading(source, in: cache) == true
    }

    /// Whether `source` is cached under the options' processor, so nothing is loaded (as in Kingfisher, a forced
    /// refresh loads every source, cached or not). The lookup runs on the cache's I/O threads with
    /// `asyncCacheTypeCheck`. A disk entry is read into memory with `.alsoPrefetchToMemory`, and checked to be
    /// intact otherwise: one that no longer decodes, or is damaged, was removed, and its source is loaded again.
    private func isCached(_ source: Source) async -> Bool {
        let cache = options.targetCache ?? manager.cache
        let key = source.cacheKey
        let identifier = options.processor.identifier
        let forcedExtension = options.forcedExtension
        let cached =
            options.asyncCacheTypeCheck
            ? await cache.imageCachedTypeAsync(
                forKey: key, processorIdentifier: identifier, forcedExtension: forcedExtension)
            : cache.imageCachedType(forKey: key, processorIdentifier: identifier, forcedExtension: forcedExtension)
        guard cached.cached, await isFresh(source, in: cache) else { return false }
        switch cached {
        case .memory:
            return true
        case .disk where options.alsoPrefetchToMemory:
            var internalOptions = options
            internalOptions.callbackQueue = .untouch
            return (try? await cache.retrieveImage(forKey: key, options: internalOptions))?.image != nil
        case .disk:
            let computed = ImageCache.computedKey(forKey: key, processorIdentifier: identifier)
            return await cache.io.perform {
                cache.diskStorage.isIntact(forKey: computed, forcedExtension: forcedExtension)
            }
        case .none:
            return false
        }
    }

    /// Following HTTP caching, whether a cached network source counts as prefetched: only while its record says
    /// fresh; otherwise the manager revalidates it (a 304 keeps the entry) or downloads it again. A record not in
    /// memory is read on the cache's I/O threads, as the check for the entry was.
    private func isFresh(_ source: Source, in cache: ImageCache) async -> Bool {
        if let known = isFreshWithoutReading(source, in: cache) { return known }
        let (key, fresh) = (source.cacheKey, freshness(in: cache))
        return await cache.io.perform { fresh(cache.httpRecords.loadRecord(forKey: key, in: cache)) }
    }

    /// ``isFresh(_:in:)`` as far as it is known without reading the disk: `nil` when the record is not in memory.
    private func isFreshWithoutReading(_ source: Source, in cache: ImageCache) -> Bool? {
        let policy = options.httpCachePolicy ?? manager.httpCachePolicy
        guard case .network = source, policy.followsHeaders else { return true }
        return cache.httpRecords.rememberedRecord(forKey: source.cacheKey).map(freshness(in: cache))
    }

    /// Whether a record says the options' variant is fresh now, following the options' (or the manager's) policy.
    private func freshness(in cache: ImageCache) -> @Sendable (HTTPCacheRecord?) -> Bool {
        let policy = options.httpCachePolicy ?? manager.httpCachePolicy
        let identifier = options.processor.identifier
        return { record in
            record?.state(ofVariant: identifier, at: cache.diskStorage.config.now(), policy: policy) == .fresh
        }
    }

    /// Loads a source through the manager's pipeline (download or provider, decode, processing, memory and disk),
    /// waiting for the disk write: a write that fails counts the source as failed.
    func retrieve(_ index: Int) async -> Outcome {
        var internalOptions = options
        internalOptions.waitForCache = true
        do {
            let value = try await manager.retrieveImage(with: sources[index], parsedOptions: internalOptions)
            return value.diskStoreError == nil ? .completed : .failed
        } catch {
            return failed(index, error)
        }
    }

    /// A source that failed to load, telling the target cache's logger why (the blocks list sources only).
    func failed(_ index: Int, _ error: KingfisherError) -> Outcome {
        let cache = options.targetCache ?? manager.cache
        cache.logger?.warning(
            "A prefetched source was not loaded",
            metadata: [
                "kf.key": "\(sources[index].cacheKey)", "kf.error": .error(error),
            ])
        return .failed
    }

    /// One progress report: a source ended.
    private func report(progress lists: Lists) {
        guard let progressBlock else { return }
        options.callbackQueue.execute { progressBlock(lists.skipped, lists.failed, lists.completed) }
    }

    /// The completion of a prefetch that ran no task (no sources, or stopped before it started).
    private func complete(_ lists: Lists) {
        guard let completionHandler else { return }
        options.callbackQueue.execute { completionHandler(lists.skipped, lists.failed, lists.completed) }
    }
}
