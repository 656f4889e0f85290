import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What following HTTP caching decided about a cached entry.
enum CachedEntryDecision {
    /// Use it; the result says how it was validated.
    case use(HTTPValidation)
    /// Use it, stale (`stale-while-revalidate`), and revalidate it in the background with this record once it has
    /// been read and handed on (``ImageRetrieval/revalidateInBackground(_:record:)``), so the revalidation never
    /// replaces the entry this retrieval is serving.
    case useWhileRevalidating(HTTPCacheRecord)
    /// The origin sent a new image, which is stored and is the result (`nil`: cancelled meanwhile).
    case replaced(Result<RetrieveImageResult, KingfisherError>?)
    /// It is not the current response's, or cannot be revalidated: download the source.
    case refetch
    /// The revalidation failed and the entry may not be used.
    case failed(KingfisherError)
}

extension ImageRetrieval {
    /// The policy when this retrieval follows HTTP caching for `source` (a network source), else `nil`.
    func httpPolicy(for source: Source) -> HTTPCachePolicy? {
        guard case .network = source, let policy = options.httpCachePolicy, policy.followsHeaders else { return nil }
        return policy
    }

    /// What a cached entry's HTTP record decides for a cache step: use the entry (how, and the stale record to
    /// revalidate in the background once it is used), or end the step here.
    enum CacheStepDecision {
        case use(HTTPValidation, revalidating: (resource: any Resource, record: HTTPCacheRecord)?)
        case end(CacheStep)
    }

    /// ``validate(_:processorIdentifier:policy:)`` as a cache step takes it.
    func decide(
        _ resource: any Resource, processorIdentifier: String, policy: HTTPCachePolicy
    ) async -> CacheStepDecision {
        switch await validate(resource, processorIdentifier: processorIdentifier, policy: policy) {
        case .use(let how): .use(how, revalidating: nil)
        case .useWhileRevalidating(let record):
            .use(.stale(.revalidatingInBackground), revalidating: (resource, record))
        case .replaced(let outcome): .end(outcome.map(CacheStep.done) ?? .cancelled)
        case .refetch: .end(.refetch)
        case .failed(let error): .end(.done(.failure(error)))
        }
    }

    /// Decides about a cached entry of `resource` made by `processorIdentifier`: fresh entries are used; stale ones
    /// are revalidated with a conditional request (in the background when `stale-while-revalidate` allows, and
    /// used anyway when `stale-if-error` allows and the origin fails); entries without a record, or with one that
    /// does not list them, are refetched.
    func validate(
        _ resource: any Resource, processorIdentifier: String, policy: HTTPCachePolicy
    ) async -> CachedEntryDecision {
        let key = resource.cacheKey
        let now = targetCache.diskStorage.config.now()
        guard let record = await targetCache.httpRecords.record(forKey: key, in: targetCache),
            let state = record.state(ofVariant: processorIdentifier, at: now, policy: policy)
        else { return .refetch }
        let whileRevalidating: Bool
        let ifError: Bool
        switch state {
        case .fresh: return .use(.fresh)
        case .stale(let swr, let sie):
            whileRevalidating = swr
            ifError = sie
        }
        guard record.hasValidator else { return .refetch }
        if whileRevalidating { return .useWhileRevalidating(record) }
        switch await download(resource, conditionalHeaders: record.conditionalHeaders) {
        case .success(let fetched) where fetched.isNotModified:
            await refresh(record, forKey: key, with: fetched.response)
            return .use(.revalidated)
        case .success(let fetched):
            return .replaced(await finish(fetched, from: .network(resource), replacing: true))
        case .failure(let error) where ifError && Self.isOriginFailure(error):
            return .use(.stale(.originFailed))
        case .failure(let error):
            return .failed(error)
        }
    }

    /// After a 304: the record refreshed with the 304's fields (or removed, when it says `no-store`).
    private func refresh(_ record: HTTPCacheRecord, forKey key: String, with response: ResponseHeaders?) async {
        guard let response else { return }
        await HTTPFreshness.refresh(
            record, forKey: key, with: response, in: targetCache, expiration: options.diskCacheExpiration)
    }

    /// `stale-while-revalidate`: a conditional request nobody waits for (shared work of the pipeline, one per
    /// cached entry at a time), which stores what it finds for the next retrievals (a concurrent retrieval of the
    /// same source shares its download).
    func revalidateInBackground(_ resource: any Resource, record: HTTPCacheRecord) {
        var conditional = internalOptions
        conditional.waitForCache = true
        // Nobody shows this one's previews.
        let context = DownloadContext(workers: workers, engine: engine, conditionalHeaders: record.conditionalHeaders)
        let downloader = self.downloader
        let key = resource.cacheKey
        let cache = targetCache
        let expiration = options.diskCacheExpiration
        let processor = options.processor
        let entry = RevalidationKey(
            cache: ObjectIdentifier(cache), key: key, processorIdentifier: processor.identifier)
        pipeline.revalidations.start(for: entry) { [conditional] in
            let loaded = await downloader.download(
                resource.downloadURL, options: conditional, context: context, progressBlock: nil,
                handle: DownloadTask())
            guard case .success(let fetched) = loaded,
                let response = fetched.response?.measured(by: cache.diskStorage.config.now)
            else { return }
            if fetched.isNotModified {
                await HTTPFreshness.refresh(record, forKey: key, with: response, in: cache, expiration: expiration)
                return
            }
            guard let newRecord = HTTPFreshness.record(of: fetched.originalData, response) else {
                await HTTPFreshness.removeEverything(forKey: key, in: cache, originalCache: cache)
                return
            }
            // A failed write reached the cache's logger.
            try? await cache.store(fetched.image, original: fetched.originalData, forKey: key, options: conditional)
            await HTTPFreshness.save(
                newRecord, variants: [processor.identifier], forKey: key, in: cache, originalCache: cache,
                expiration: expiration)
        }
    }

    /// Whether `error` is the origin failing (unreachable, timed out, a `5xx`), which `stale-if-error` covers.
    static func isOriginFailure(_ error: KingfisherError) -> Bool {
        guard case .responseError(let reason) = error else { return false }
        switch reason {
        case .URLSessionError, .requestTimedOut: return true
        case .invalidHTTPStatusCode(let response): return (500..<600).contains(response.statusCode)
        default: return false
        }
    }
}

/// The cached entry a background revalidation refreshes.
struct RevalidationKey: Hashable, Sendable {
    let cache: ObjectIdentifier
    let key: String
    let processorIdentifier: String
}
