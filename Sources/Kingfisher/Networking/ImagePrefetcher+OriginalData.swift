import Foundation

extension ImagePrefetcher {
    /// Whether a source that is not cached is stored as its original bytes after a header check, without being
    /// decoded: when the serializer keeps original data (``CacheSerializer/originalDataUsed``, e.g.
    /// ``DefaultCacheSerializer/preferCacheOriginalData``), nothing is to go to memory (no `.cacheMemoryOnly`, no
    /// `.alsoPrefetchToMemory`), the processor is the default one (the file then holds exactly what a retrieval
    /// reads back under the plain key), and no option needs the manager's other steps (`.alternativeSources`,
    /// `.lowDataMode`, `.onlyFromCache`). Otherwise the manager loads the source, as in Kingfisher.
    var storesOriginalData: Bool {
        options.cacheSerializer.originalDataUsed && options.processor.identifier.isEmpty && !options.cacheMemoryOnly
            && !options.alsoPrefetchToMemory && (options.alternativeSources ?? []).isEmpty
            && options.lowDataModeSource == nil && !options.onlyFromCache
    }

    /// Fetches a source's bytes (the downloader for a network source, the provider otherwise), checks their header
    /// (``ImageHeaderCheck``), and writes what the serializer keeps of them to the target cache's disk, where the
    /// manager would have written it. Nothing is decoded and nothing goes to memory. A serializer that keeps
    /// nothing of the bytes without the image they decode to gets the source loaded through the manager instead.
    func loadOriginalData(_ index: Int, cache: ImageCache) {
        var fetchOptions = options
        fetchOptions.callbackQueue = .untouch
        let allFrames = !options.onlyLoadFirstFrame
        let fetched: @Sendable (Result<(Data, ResponseHeaders?), KingfisherError>) -> Void = { result in
            switch result {
            case .success(let (data, response)):
                self.storeOriginalData(data, response: response, index: index, cache: cache)
            case .failure(let error): self.fail(index, error)
            }
        }
        switch sources[index] {
        case .network(let resource):
            // Through the open entry point, so a subclass's override sees it; the retry strategy, request
            // modifier and delegate apply as for any download. The delegate's `didDownload image` gets an empty
            // image: none was decoded.
            fetchOptions.processor = ImageHeaderCheck.Processor(allFrames: allFrames, reported: options.processor)
            // Previews would be decoded from the scans as they arrive; nothing shows them here.
            fetchOptions.progressiveJPEG = nil
            if (options.httpCachePolicy ?? manager.httpCachePolicy).resumes {
                fetchOptions.partialDownloads = cache.partialDownloads
            }
            let downloader = options.downloader ?? manager.downloader
            let task = downloader.downloadImage(with: resource.downloadURL, options: fetchOptions) { result in
                fetched(result.map { ($0.originalData, $0.response) })
            }
            register(index, cancel: { task.cancel() })
        case .provider(let provider):
            let processor = options.processor
            let work = Task {
                let cancelled = KingfisherError.requestError(reason: .dataProviderCancelled(provider: provider))
                let data: Data
                do {
                    data = try await provider.data()
                } catch let error as KingfisherError {
                    fetched(.failure(Task.isCancelled ? cancelled : error))
                    return
                } catch {
                    let failure = KingfisherError.imageSettingError(
                        reason: .dataProviderError(provider: provider, error: error))
                    fetched(.failure(Task.isCancelled ? cancelled : failure))
                    return
                }
                guard !Task.isCancelled else {
                    fetched(.failure(cancelled))
                    return
                }
                // libvips reads the header on the pool, as every other libvips call of a retrieval runs there.
                let checked = await manager.pipeline.decoder.run(
                    on: fetchOptions.processingQueue, engine: fetchOptions.engine ?? manager.engine
                ) {
                    ImageHeaderCheck.check(data, allFrames: allFrames, processor: processor)
                }
                fetched(checked.map { (data, nil) })
            }
            register(index, cancel: { work.cancel() })
        }
    }

    /// Writes the serializer's bytes for `data` and ends the source: completed once the file is written, failed
    /// when the write fails. Following HTTP caching, the response's record is written after the file, as the
    /// manager writes it; a `no-store` response completes with nothing written.
    private func storeOriginalData(_ data: Data, response: ResponseHeaders?, index: Int, cache: ImageCache) {
        // The serializer is asked as the manager asks it, with the original bytes; there is no decoded image to
        // hand it, so it gets an empty one.
        guard let serialized = options.cacheSerializer.data(with: KFCrossPlatformImage(), original: data) else {
            retrieve(index)
            return
        }
        // Where the manager's store writes it: `key@<processor>`, the options' expiration, write options, extension.
        let key = sources[index].cacheKey
        let computed = ImageCache.computedKey(forKey: key, processorIdentifier: options.processor.identifier)
        let recordToSave: HTTPCacheRecord?
        if case .network = sources[index], let response,
            (options.httpCachePolicy ?? manager.httpCachePolicy).followsHeaders
        {
            guard let made = HTTPFreshness.record(of: data, response.measured(by: cache.diskStorage.config.now))
            else {
                finish(index, .completed)  // `no-store`: nothing to keep
                return
            }
            recordToSave = made
        } else {
            recordToSave = nil
        }
        let variant = options.processor.identifier
        let expiration = options.diskCacheExpiration
        cache.enqueueWrite(
            serialized, computedKey: computed, expiration: expiration,
            writeOptions: options.diskStoreWriteOptions, forcedExtension: options.forcedExtension
        ) { failure in
            // On a failure the cache logged why.
            guard failure == nil, let record = recordToSave else {
                self.finish(index, failure == nil ? .completed : .failed)
                return
            }
            Task {
                await HTTPFreshness.save(
                    record, variants: [variant], forKey: key, in: cache, originalCache: cache, expiration: expiration)
                self.finish(index, .completed)
            }
        }
    }
}
