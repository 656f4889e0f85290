import Foundation

/// Stages 4 and 5 of a retrieval, decode and process, as one call on a worker thread (a processor
/// receives the bytes and decodes them: a downsampling one shrinks on load): the options' processor over
/// downloaded, provided or cached bytes, or over an image (an original processed again), with Kingfisher's errors.
/// Runs on the caller's thread: callers put it on the ``ImageWorkers``.
enum ImageProcessing {
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
}

/// What a retrieval does to an image the cache found before handing it out, as Kingfisher's manager does.
enum CachedImageRebuild {
    /// Whether `image`, found in a memory cache, was made from animated data with other image-creating options
    /// than `options` ask (only its first frame where every frame is asked, or the reverse; another scale): it must
    /// be made again from its ``KingfisherWrapper/animatedImageData`` (Kingfisher #1923).
    ///
    /// - Note: Kingfisher makes every multi-frame image with animated data again on every memory hit; the result is
    ///   the same, but here only a mismatch does, so a hit does not decode an animation each time.
    static func isNeeded(for image: KFCrossPlatformImage, options: KingfisherParsedOptionsInfo) -> Bool {
        guard image.animatedImageData != nil else { return false }
        let madeFirstFrameOnly = image.animation == nil
        return madeFirstFrameOnly != options.onlyLoadFirstFrame || image.scale != options.scaleFactor
    }

    /// `image` made again from its animated data by the options' processor, with the options' creating options,
    /// on `workers`. The failure is Kingfisher's `processingFailed` (Kingfisher hands out an empty image); `nil`
    /// when the calling task was cancelled first.
    static func rebuilt(
        _ image: KFCrossPlatformImage, options: KingfisherParsedOptionsInfo, on workers: ImageWorkers,
        engine: ImageEngine.Configuration
    ) async -> Result<KFCrossPlatformImage, KingfisherError>? {
        guard let data = image.animatedImageData else { return .success(image) }
        return await processed(.data(data), options: options, on: workers, engine: engine)
    }
}
