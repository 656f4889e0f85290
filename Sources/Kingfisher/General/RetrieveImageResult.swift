public import Foundation

/// A retrieved image and where it came from.
public struct RetrieveImageResult: Sendable {
    /// The image, processed by the options' processor.
    public let image: KFCrossPlatformImage

    /// `.memory` or `.disk` for a cache hit; `.none` when the image was downloaded, provided, or processed again
    /// from a cached original.
    public let cacheType: CacheType

    /// The source the image was retrieved from (an alternative source when the original one failed).
    public let source: Source

    /// The source the retrieval was asked for.
    public let originalSource: Source

    /// The image's data: the downloaded or provided bytes; for a cache hit, the cache serializer's encoding of
    /// the image (computed when called).
    public let data: @Sendable () -> Data?

    /// Timing of the download; `nil` when nothing was downloaded.
    public let metrics: NetworkMetrics?

    /// Why the image is not in the disk cache although it should be: the disk write (or the serializer's
    /// encoding) failed. Known only when the retrieval waited for its writes (`.waitForCache`); without it the
    /// failure goes to ``ImageCache/logger``. `nil` when the writes succeeded or none was asked for. Ours:
    /// Kingfisher drops store errors.
    public let diskStoreError: KingfisherError?

    /// How the image was obtained when the retrieval followed the HTTP caching headers (``HTTPCachePolicy``):
    /// fresh from the cache, revalidated, refetched, or served stale. `nil` when it did not (the default), or for a
    /// source that is not a network resource. Ours.
    public let validation: HTTPValidation?

    /// The bytes the retrieval's serializer encoded for the disk cache and wrote there, when this retrieval (or
    /// one it shared the work with) stored the image: an image server answers with them instead of reading its
    /// own write back.
    package var encodedData: Data?

    public init(
        image: KFCrossPlatformImage, cacheType: CacheType, source: Source, originalSource: Source,
        data: @escaping @Sendable () -> Data?, metrics: NetworkMetrics?, diskStoreError: KingfisherError? = nil,
        validation: HTTPValidation? = nil
    ) {
        self.validation = validation
        self.image = image
        self.cacheType = cacheType
        self.source = source
        self.originalSource = originalSource
        self.data = data
        self.metrics = metrics
        self.diskStoreError = diskStoreError
    }
}
