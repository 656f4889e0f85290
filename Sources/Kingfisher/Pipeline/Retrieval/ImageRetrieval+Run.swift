import Foundation
import Tracing
import KingfisherLocking

extension ImageRetrieval {
    /// The whole retrieval after the memory fast path, in its span: the source, then its alternatives while they
    /// fail.
    func run() async -> Result<RetrieveImageResult, KingfisherError> {
        await StageSpan.retrieve.run { span in
            span.attributes["kingfisher.cache_key"] = originalSource.cacheKey
            span.attributes["kingfisher.processor"] = options.processor.identifier
            let result = await runSources()
            switch result {
            case .success(let value): span.attributes["kingfisher.cache_type"] = value.cacheType.spanValue
            case .failure(let error):
                span.recordError(error)
                span.setStatus(SpanStatus(code: .error))
            }
            return result
        }
    }

    private func runSources() async -> Result<RetrieveImageResult, KingfisherError> {
        var source = originalSource
        var alternatives = options.alternativeSources ?? []
        var failures: [PropagationError] = []
        while true {
            // A provider source reports its own cancellation from the start, as Kingfisher's (whose provider is
            // called before retrieveImage returns).
            if case .provider(let provider) = source {
                handle.enter(.providing(provider))
            } else {
                handle.enter(.preparing)
            }
            guard !isCancelled, let outcome = await attempt(source) else {
                return .failure(cancellationError)
            }
            switch outcome {
            case .success(let value):
                return .success(value)
            case .failure(let error) where error.isTaskCancelled || isCancelled:
                return .failure(error.isTaskCancelled ? error : cancellationError)
            case .failure(let error):
                failures.append(PropagationError(source: source, error: error))
                guard !alternatives.isEmpty else {
                    let final =
                        failures.count == 1 ? error : .imageSettingError(reason: .alternativeSourcesExhausted(failures))
                    return .failure(final)
                }
                source = alternatives.removeFirst()
                guard replaceHandle() else { return .failure(cancellationError) }
            }
        }
    }

    /// One source: caches, then the network or the provider (or, for a network source on a constrained network, the
    /// low-data source), then storing. `nil` when the retrieval was cancelled.
    private func attempt(
        _ source: Source, lowDataSourceAllowed: Bool = true
    ) async -> Result<RetrieveImageResult, KingfisherError>? {
        let key = source.cacheKey
        // Following HTTP caching, a forced refresh of an entry that is there replaces it; of nothing, it fetches.
        var replacing = false
        if options.forceRefresh, httpPolicy(for: source) != nil {
            replacing = await isInTargetCache(key, options: internalOptions)
        }
        if case .originalBytes = mode {
            // The caller looked: the source is not cached, or its entry is stale.
        } else if !options.forceRefresh {
            guard !isCancelled else { return nil }
            switch await fromTargetCache(source) {
            case .miss: break
            case .refetch: replacing = true
            case .cancelled: return nil
            case .done(let outcome): return outcome
            }
            switch await fromOriginalCache(source) {
            case .miss: break
            case .refetch: replacing = true
            case .cancelled: return nil
            case .done(let outcome): return outcome
            }
        }
        if options.onlyFromCache {
            return .failure(.cacheError(reason: .imageNotExisting(key: key)))
        }
        if lowDataSourceAllowed, case .network = source, let lowData = options.lowDataModeSource,
            downloader.isNetworkConstrained
        {
            // Kingfisher's main request fails on a constrained network and the low-data source is loaded instead,
            // through the caches; it is loaded whatever the network, as Kingfisher clears the option for it.
            return await attempt(lowData, lowDataSourceAllowed: false)
        }
        let fetched: Result<FetchedImage, KingfisherError>
        switch source {
        case .network(let resource): fetched = await download(resource)
        case .provider(let provider): fetched = await provide(provider)
        }
        switch fetched {
        case .failure(let error):
            return .failure(error)
        case .success(let value):
            return await finish(value, from: source, replacing: replacing)
        }
    }

    /// Stores a fetched image and makes the result; `nil` when the retrieval was cancelled first. Following HTTP
    /// caching, the response's record is stored too, and the result says `refetched` when it `replac`es a cached
    /// entry, else `fetched`.
    func finish(
        _ value: FetchedImage, from source: Source, replacing: Bool
    ) async -> Result<RetrieveImageResult, KingfisherError>? {
        if value.isNotModified {
            // A 304 nobody asked for (a request modifier's own conditional headers): there is no image.
            return .failure(.responseError(reason: .URLSessionError(error: URLError(.badServerResponse))))
        }
        guard commit() else { return nil }
        let policy = httpPolicy(for: source)
        // The bytes' CRC-32C names them in the record and is their cache file's checksum: computed once.
        let checksum = policy.map { _ in CacheFileIntegrity.checksum(of: value.originalData) }
        let record = policy.flatMap { _ in
            value.response.flatMap { HTTPFreshness.record(of: value.originalData, checksum: checksum, $0) }
        }
        let stored = await store(
            value.image, original: value.originalData, originalChecksum: checksum, key: source.cacheKey,
            toDisk: policy == nil || record != nil, record: record)
        let data = value.originalData
        return .success(
            result(
                value.image, from: source, cacheType: .none, metrics: value.metrics, stored: stored,
                validation: policy == nil ? nil : (replacing ? .refetched : .fetched)
            ) { data })
    }
}
