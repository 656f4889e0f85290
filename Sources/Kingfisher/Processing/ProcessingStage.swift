import Foundation

/// The processing stage: the options' processor over downloaded, provided or cached bytes, or over an image (an
/// original processed again), with Kingfisher's errors. Runs on the caller's thread: callers put it on the
/// ``DecodeStage``.
enum ProcessingStage {
    /// The processor's image. When it gives none: `processingFailed`, as in Kingfisher, with a
    /// ``DecodingFailedProcessor`` carrying the decoder's reason when the data is not an image (empty, not an image
    /// format, corrupt). The safety limits keep their own reasons (`pixelLimitExceeded`, `frameLimitExceeded`,
    /// `timeLimitExceeded`): the data is an image, refused by a limit the caller may want to raise.
    static func image(from data: Data, options: KingfisherParsedOptionsInfo) -> Result<
        KFCrossPlatformImage, KingfisherError
    > {
        let processor = options.processor
        let outcome = ProcessingFailure.run(processor, item: .data(data), options: options)
        // A processor's own reason stands once the data is known to be an image (a processor that decodes the
        // bytes itself notes the decoder's failure as its reason).
        var explained: KingfisherError?
        switch outcome {
        case .failure(let error) where error.explainedFailure != nil: explained = error
        case .some(let outcome): return outcome
        case .none: break
        }
        do {
            _ = try KFCrossPlatformImage(decoding: data, options: options.imageCreatingOptions)
        } catch {
            guard case .processorError(let reason) = error, reason.meansNotAnImage else { return .failure(error) }
            let failed = DecodingFailedProcessor(processor: processor, reason: reason)
            return .failure(.processorError(reason: .processingFailed(processor: failed, item: .data(data))))
        }
        return .failure(
            explained ?? .processorError(reason: .processingFailed(processor: processor, item: .data(data))))
    }

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
