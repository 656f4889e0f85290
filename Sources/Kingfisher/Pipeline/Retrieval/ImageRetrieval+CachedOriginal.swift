import Foundation
import Tracing

extension ImageRetrieval {
    /// Step 3: for a processor other than the default, the original image under the plain key in the original
    /// cache, processed again and stored in the target cache.
    ///
    /// - Note: Unlike Kingfisher, an original read from disk is not put in the memory cache: it is usually the
    ///   large image the processor exists to avoid keeping.
    func fromOriginalCache(_ source: Source) async -> CacheStep {
        let key = source.cacheKey
        guard hasCustomProcessor, !options.fromMemoryCacheOrRefresh, !isCancelled, await isOriginalCached(key)
        else { return .miss }
        var validation: HTTPValidation?
        var revalidation: (resource: any Resource, record: HTTPCacheRecord)?
        if case .network(let resource) = source, let policy = httpPolicy(for: source) {
            // The original's record decides before it is read: fresh, it is processed again; stale, it is
            // revalidated first (a 304 keeps it, a 200 is the new image, processed as downloaded).
            switch await decide(resource, processorIdentifier: "", policy: policy) {
            case .use(let how, let stale): (validation, revalidation) = (how, stale)
            case .end(let step): return step
            }
        }
        guard let made = await processedOriginal(key) else { return isCancelled ? .cancelled : .miss }
        let processed: KFCrossPlatformImage
        switch made.outcome {
        case .success(let image): processed = image
        case .failure(let error): return .done(.failure(error))
        }
        guard commit() else { return .cancelled }
        // The serializer gets the original's bytes when they were read, as after a download: the processed entry
        // is then the same file (format and bytes) whichever way the original came.
        let original = made.originalData
        let stored = await store(processed, original: original, key: key, storingOriginal: false)
        if validation != nil {
            await HTTPFreshness.addVariant(options.processor.identifier, forKey: key, in: targetCache)
        }
        // The stale original is processed and its variant stored: only now may a revalidation replace them.
        if let revalidation { revalidateInBackground(revalidation.resource, record: revalidation.record) }
        let serializer = options.cacheSerializer
        return .done(
            .success(
                result(processed, from: source, cacheType: .none, stored: stored, validation: validation) {
                    serializer.data(with: processed, original: original)
                }))
    }

    /// The cached original of `key` processed by the options' processor; `nil` when it is not cached (or the
    /// retrieval was cancelled). An original in memory is processed as an image. One on disk is processed from its
    /// bytes when the serializer decodes them the default way, so a downsampling processor shrinks it on load
    /// instead of decoding it at full size first; bytes that are no image are removed and count as a miss.
    ///
    /// Concurrent retrievals of one original with the same processing share the work (see
    /// ``ImagePipeline/originalProcessing``): a retrieval cancelled while it runs leaves at once, and the work stops
    /// (a queued decode leaves its queue) once every retrieval waiting for it has left.
    private func processedOriginal(_ key: String) async -> ProcessedOriginal? {
        let shared = OriginalProcessingKey(
            originalCache: ObjectIdentifier(originalCache), cacheKey: key,
            processing: ProcessingKey(internalOptions, engine: engine))
        let found = await pipeline.originalProcessing.value(for: shared) { [self] in await processOriginal(key) }
        return found ?? nil
    }

    /// The work of ``processedOriginal(_:)``, in the task the retrievals share.
    private func processOriginal(_ key: String) async -> ProcessedOriginal? {
        let processingOptions = internalOptions
        let metrics = self.metrics
        let lookupOptions = originalOptions
        let inMemory = originalCache.retrieveImageInMemoryCache(forKey: key, options: lookupOptions)
        if inMemory == nil, lookupOptions.cacheSerializer is any DefaultDecodingCacheSerializer {
            // Read only when the decode is near (a gallery scrolling fast asks for many more than decode), and
            // not at all when cancelled while waiting for that.
            return await workers.readingAhead { () async -> ProcessedOriginal? in
                guard !Task.isCancelled,
                    case .success(let data?) = await StageSpan.disk.run({ span in
                        span.attributes["kingfisher.original"] = true
                        return await originalCache.dataFromDisk(forKey: key, options: lookupOptions)
                    })
                else { return nil }
                guard !Task.isCancelled else { return nil }
                // A retrieval cancelled while its decode waits leaves the queue: the decode never runs.
                guard
                    let outcome = await StageSpan.decode.run({ span in
                        span.attributes["kingfisher.bytes"] = data.count
                        return await workers.runUnlessCancelled(
                            on: options.processingQueue, decoding: data,
                            shrunkToFit: ImageWorkers.shrinkOnLoadSide(
                                of: processingOptions.processor, for: data, options: processingOptions),
                            engine: engine,
                            { metrics.timeOriginal { ImageProcessing.image(from: data, options: processingOptions) } })
                    })
                else { return nil }
                if case .failure(.processorError(.processingFailed(let processor as DecodingFailedProcessor, _))) =
                    outcome, processor.reason.meansNotAnImage
                {
                    await originalCache.removeUndecodable(forKey: key, bytes: data.count, options: lookupOptions)
                    return nil
                }
                return ProcessedOriginal(outcome: outcome, originalData: data)
            }
        }
        guard let (original, _) = await lookUp(key, in: originalCache, options: lookupOptions), !Task.isCancelled else {
            return nil
        }
        let outcome = await StageSpan.process.run { _ in
            await workers.runUnlessCancelled(on: options.processingQueue, engine: engine) {
                metrics.timeOriginal { ImageProcessing.image(processing: original, options: processingOptions) }
            }
        }
        return outcome.map { ProcessedOriginal(outcome: $0, originalData: nil) }
    }

    /// The existence probe before reading an original: memory, then a `stat` on the original cache's I/O threads
    /// (never a thread of the cooperative pool; Kingfisher's `asyncCacheTypeCheck` asks for as much).
    private func isOriginalCached(_ key: String) async -> Bool {
        await originalCache.imageCachedTypeAsync(forKey: key, forcedExtension: options.forcedExtension).cached
    }
}

/// A cached original processed again: the outcome, and the original's bytes when it was read from disk (an original
/// found in memory has none).
struct ProcessedOriginal: Sendable {
    let outcome: Result<KFCrossPlatformImage, KingfisherError>
    let originalData: Data?
}

/// Which processing of which cached original retrievals share (see ``ImagePipeline/originalProcessing``).
struct OriginalProcessingKey: Hashable, Sendable {
    let originalCache: ObjectIdentifier
    let cacheKey: String
    let processing: ProcessingKey
}
