import Foundation
import Tracing

extension ImageRetrieval {
    /// The disk bytes of `image`: encoded on the workers; for an original-bytes retrieval, the serializer's
    /// keeping of the bytes as they came, on this thread (nothing is encoded), where a serializer that needs the
    /// image is no failure to log (the prefetcher loads such a source through the manager instead).
    func encoded(
        _ image: KFCrossPlatformImage, original: Data?, key: String, options: KingfisherParsedOptionsInfo
    ) async -> Result<Data, KingfisherError> {
        guard case .originalBytes = mode else {
            return await StageSpan.encode.run { span in
                let encoded = await targetCache.encodeForDisk(
                    image, original: original, forKey: key, options: options, on: workers, engine: engine)
                if case .success(let data) = encoded { span.attributes["kingfisher.bytes"] = data.count }
                return encoded
            }
        }
        let serializer = options.cacheSerializer
        guard let data = serializer.data(with: image, original: original) else {
            return .failure(
                .cacheError(reason: .cannotSerializeImage(image: image, original: original, serializer: serializer)))
        }
        return .success(data)
    }
}

extension ImageCache {
    /// The disk bytes of `image` for the pipeline's store: the options' serializer run on `workers` (the cache's
    /// own by default), never on the disk threads, so an encode does not hold up disk lookups. A serializer that
    /// gives no bytes fails with `cannotSerializeImage` (logged).
    func encodeForDisk(
        _ image: KFCrossPlatformImage, original: Data?, forKey key: String, options: KingfisherParsedOptionsInfo,
        on workers: ImageWorkers? = nil, engine: ImageEngine.Configuration? = nil
    ) async -> Result<Data, KingfisherError> {
        let serializer = options.cacheSerializer
        let metrics = self.metrics
        // On the executor's own threads: a `processingQueue` is where images are processed (as in Kingfisher, whose
        // encode runs on the cache's queue), not where the cache's bytes are made.
        let data = await (workers ?? self.workers).run(on: nil, engine: engine ?? self.engine) {
            metrics.timeEncode { serializer.data(with: image, original: original) }
        }
        guard let data else {
            let reason = KingfisherError.CacheErrorReason.cannotSerializeImage(
                image: image, original: original, serializer: serializer)
            let computed = Self.computedKey(forKey: key, processorIdentifier: options.processor.identifier)
            logFailedWrite(.cacheError(reason: reason), computedKey: computed)
            return .failure(.cacheError(reason: reason))
        }
        return .success(data)
    }
}
