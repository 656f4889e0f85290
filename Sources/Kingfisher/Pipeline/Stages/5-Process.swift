import Foundation
import Tracing

extension ImageProcessing {
    /// The processor over an image already decoded (an original from the cache); `processingFailed` when it gives
    /// none.
    static func image(
        processing image: KFCrossPlatformImage, options: KingfisherParsedOptionsInfo
    ) -> Result<KFCrossPlatformImage, KingfisherError> {
        let processor = options.processor
        if let outcome = ProcessingFailure.run(processor, item: .image(image), options: options) { return outcome }
        return .failure(.processorError(reason: .processingFailed(processor: processor, item: .image(image))))
    }
}

extension CachedImageRebuild {
    /// `item` through the options' processor on `workers`; for an image a disk cache holding original
    /// data gave back (the serializer's ``CacheSerializer/originalDataUsed``), which is not processed yet.
    static func processed(
        _ item: ImageProcessItem, options: KingfisherParsedOptionsInfo, on workers: ImageWorkers,
        engine: ImageEngine.Configuration
    ) async -> Result<KFCrossPlatformImage, KingfisherError>? {
        let processor = options.processor
        var data: Data?
        if case .data(let bytes) = item { data = bytes }
        let stage: StageSpan = data == nil ? .process : .decode
        guard
            let outcome = await stage.run({ _ in
                await workers.runUnlessCancelled(
                    on: options.processingQueue, decoding: data,
                    shrunkToFit: ImageWorkers.shrinkOnLoadSide(of: processor, for: data, options: options),
                    engine: engine, { ProcessingFailure.run(processor, item: item, options: options) })
            })
        else { return nil }
        switch outcome {
        case .success(let image): return .success(image)
        case .failure(let error): return .failure(error)
        case nil:
            return .failure(.processorError(reason: .processingFailed(processor: processor, item: item)))
        }
    }
}

/// What makes two loads' images come out the same, so that they share one decode and processing run.
struct ProcessingKey: Hashable {
    let processor: String
    let scale: Double
    let onlyFirstFrame: Bool
    let preloadAll: Bool
    /// Callers with different limits (two managers sharing a downloader) are processed apart.
    let engine: ImageEngine.Configuration?

    init(_ options: KingfisherParsedOptionsInfo, engine: ImageEngine.Configuration?) {
        processor = options.processor.identifier
        scale = Double(options.scaleFactor)
        onlyFirstFrame = options.onlyLoadFirstFrame
        preloadAll = options.preloadAllAnimationData
        self.engine = engine
    }
}
