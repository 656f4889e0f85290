import KingfisherLocking

/// What a ``KingfisherManager`` owns to retrieve images: its configuration, its stages with their limits, and the
/// work in progress its retrievals share. Nothing here is process-wide, so two managers in one process keep their
/// own limits and never wait for each other's work.
final class ImagePipeline: Sendable {
    /// The limits of one pipeline.
    struct Configuration: Sendable {
        /// The decode limits and the decode stage's size (``ImageEngine/Configuration/decodeConcurrency``).
        var engine: ImageEngine.Configuration
    }

    private let state: Locked<Configuration>
    /// Where the retrievals' decodes and processing runs happen, the downloads and disk reads they make included.
    let decoder: DecodeStage
    /// Provider loads in progress: concurrent retrievals of one provider key with the same processing share one
    /// load, decode and processing run.
    let providerLoads = SharedWork<ProviderLoadKey, Result<FetchedImage, KingfisherError>>()
    /// Disk stores in progress: concurrent retrievals storing one image under one key encode and write it once.
    let diskStores = SharedWork<DiskStoreKey, StoreOutcome>()

    init(configuration: Configuration) {
        state = Locked(configuration)
        decoder = DecodeStage(threads: configuration.engine.decodeConcurrency)
    }

    /// Changing it takes effect for the work that waits and the work to come (the decode stage resizes at once).
    var configuration: Configuration {
        get { state.withLock { $0 } }
        set {
            state.withLock { $0 = newValue }
            decoder.lane.threads = newValue.engine.decodeConcurrency
        }
    }
}
