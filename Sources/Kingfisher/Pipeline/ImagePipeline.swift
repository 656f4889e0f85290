import KingfisherLocking
import Logging

/// What a ``KingfisherManager`` owns to retrieve images: its settings, its workers with their limits, and the work
/// in progress its retrievals share. Nothing here is process-wide, so two managers in one process keep their
/// own limits and never wait for each other's work.
final class ImagePipeline: Sendable {
    /// The settings of one pipeline, read once per retrieval.
    struct Settings: Sendable {
        /// The decode limits and the workers' size (``ImageEngine/Configuration/decodeConcurrency``).
        var engine: ImageEngine.Configuration = .default
        /// Whether retrievals follow their responses' HTTP caching headers, unless a call says otherwise.
        var httpCachePolicy: HTTPCachePolicy = .ignoresResponseHeaders
        /// Where retrievals log when their call gives no logger.
        var logger: Logger?
    }

    private let state: Locked<Settings>
    /// Where the retrievals' decodes and processing runs happen, the downloads and disk reads they make included.
    let workers: ImageWorkers
    /// Provider loads in progress: concurrent retrievals of one provider key with the same processing share one
    /// load, decode and processing run. A load its last retrieval cancels is waited for, up to
    /// ``ImageRetrieval/providerCancellationGrace``, before that retrieval reports the cancel.
    let providerLoads = SharedWork<ProviderLoadKey, Result<FetchedImage, KingfisherError>>(
        drainGrace: ImageRetrieval.providerCancellationGrace)
    /// Cached originals being processed again: concurrent retrievals of one original with the same processing
    /// share one read, decode and processing run (`nil` inside: the original was not found).
    let originalProcessing = SharedWork<OriginalProcessingKey, ProcessedOriginal?>()
    /// Disk stores in progress: concurrent retrievals storing one image under one key encode and write it once.
    let diskStores = SharedWork<DiskStoreKey, StoreOutcome>()
    /// `stale-while-revalidate` revalidations in progress, which run with nobody waiting: one per cached entry at
    /// a time, however many stale hits ask for it.
    let revalidations = SharedWork<RevalidationKey, Void>()

    init(settings: Settings) {
        state = Locked(settings)
        workers = ImageWorkers(threads: settings.engine.decodeConcurrency)
    }

    var settings: Settings { state.withLock { $0 } }

    /// Changes the settings in one step (concurrent changes of different settings keep each other's); it takes
    /// effect for the work that waits and the work to come (the workers resize at once).
    func change(_ body: (inout Settings) -> Void) {
        let threads = state.withLock { settings in
            body(&settings)
            return settings.engine.decodeConcurrency
        }
        workers.threads = threads
    }
}
