import Foundation

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
    /// on `decoder`. The failure is Kingfisher's `processingFailed` (Kingfisher hands out an empty image); `nil`
    /// when the calling task was cancelled first.
    static func rebuilt(
        _ image: KFCrossPlatformImage, options: KingfisherParsedOptionsInfo, on decoder: DecodeStage,
        engine: ImageEngine.Configuration
    ) async -> Result<KFCrossPlatformImage, KingfisherError>? {
        guard let data = image.animatedImageData else { return .success(image) }
        return await processed(.data(data), options: options, on: decoder, engine: engine)
    }

    /// `item` through the options' processor on `decoder`; for an image a disk cache holding original
    /// data gave back (the serializer's ``CacheSerializer/originalDataUsed``), which is not processed yet.
    static func processed(
        _ item: ImageProcessItem, options: KingfisherParsedOptionsInfo, on decoder: DecodeStage,
        engine: ImageEngine.Configuration
    ) async -> Result<KFCrossPlatformImage, KingfisherError>? {
        let processor = options.processor
        var data: Data?
        if case .data(let bytes) = item { data = bytes }
        guard
            let outcome = await decoder.runUnlessCancelled(
                on: options.processingQueue, decoding: data, engine: engine,
                { ProcessingFailure.run(processor, item: item, options: options) })
        else { return nil }
        switch outcome {
        case .success(let image): return .success(image)
        case .failure(let error): return .failure(error)
        case nil:
            return .failure(.processorError(reason: .processingFailed(processor: processor, item: item)))
        }
    }
}
