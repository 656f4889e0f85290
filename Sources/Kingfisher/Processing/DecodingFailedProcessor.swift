/// The `processor` of a ``KingfisherError/ProcessorErrorReason/processingFailed(processor:item:)`` error whose data
/// is not an image: the processor that was used, with the decoder's precise reason.
///
/// Kingfisher reports bytes that are not an image (an empty body, an HTML page, a truncated file) as the processor
/// failing on them, and so does this package. The precise reason stays reachable here, or through
/// ``KingfisherError/underlyingReason``:
///
/// ```swift
/// if case .processorError(.processingFailed(let processor as DecodingFailedProcessor, _)) = error {
///     print(processor.reason)   // e.g. .unsupportedImageFormat(.unknown)
/// }
/// ```
///
/// Its ``identifier`` is the used processor's, and it processes as that processor does.
///
/// The safety limits are not reported this way: an image refused by ``ImageEngine/maximumPixelCount``,
/// ``ImageEngine/maximumFrameCount`` or ``ImageEngine/timeLimit`` fails with its own reason
/// (``KingfisherError/ProcessorErrorReason/pixelLimitExceeded(width:height:limit:)``...). The data is an image
/// there, refused by a limit the caller may choose to raise; Kingfisher has no such limits.
public struct DecodingFailedProcessor: ImageProcessor {
    /// The processor the image was to be made with.
    public let processor: any ImageProcessor
    /// Why the data did not decode: ``KingfisherError/ProcessorErrorReason/emptyImageData``,
    /// ``KingfisherError/ProcessorErrorReason/unsupportedImageFormat(_:)`` or
    /// ``KingfisherError/ProcessorErrorReason/imageDecodingFailed(format:error:)``.
    public let reason: KingfisherError.ProcessorErrorReason

    /// Wraps `processor` with the decoder's `reason`.
    public init(processor: any ImageProcessor, reason: KingfisherError.ProcessorErrorReason) {
        self.processor = processor
        self.reason = reason
    }

    /// The used processor's identifier.
    public var identifier: String { processor.identifier }

    /// Runs the used processor.
    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        processor.process(item: item, options: options)
    }
}

extension KingfisherError {
    /// The decoder's precise reason when the data was not an image (see ``DecodingFailedProcessor``); `nil` for
    /// every other error.
    public var underlyingReason: ProcessorErrorReason? {
        guard case .processorError(.processingFailed(let processor as DecodingFailedProcessor, _)) = self else {
            return nil
        }
        return processor.reason
    }
}

extension KingfisherError.ProcessorErrorReason {
    /// Whether this reason means "these bytes are not an image", which Kingfisher reports as `processingFailed`;
    /// the safety limits (pixels, frames, time) are not.
    var meansNotAnImage: Bool {
        switch self {
        case .emptyImageData, .unsupportedImageFormat, .imageDecodingFailed: true
        default: false
        }
    }
}
