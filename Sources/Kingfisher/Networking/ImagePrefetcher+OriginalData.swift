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
    /// manager would have written it: the pipeline's retrieval in its original-bytes mode, with its fetch and store
    /// stages, run in the calling task. Nothing is decoded and nothing goes to memory. A serializer that keeps
    /// nothing of the bytes without the image they decode to gets the source loaded through the manager instead.
    func loadOriginalData(_ index: Int) async -> Outcome {
        var internalOptions = options
        internalOptions.callbackQueue = .untouch
        // Waits for the disk write, so a write that fails counts the source as failed.
        internalOptions.waitForCache = true
        let retrieval = ImageRetrieval(
            source: sources[index], options: internalOptions, manager: manager, handle: DownloadTask(),
            progressBlock: nil, mode: .originalBytes(allFrames: !options.onlyLoadFirstFrame))
        switch await retrieval.value() {
        case .success(let value):
            if case .cacheError(reason: .cannotSerializeImage)? = value.diskStoreError { return await retrieve(index) }
            return value.diskStoreError == nil ? .completed : .failed
        case .failure(let error):
            return failed(index, error)
        }
    }
}
