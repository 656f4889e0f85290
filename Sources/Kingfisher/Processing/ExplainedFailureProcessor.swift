/// The `processor` of a ``KingfisherError/ProcessorErrorReason/processingFailed(processor:item:)`` error whose
/// processor said why it gave no image: the processor that was used, with that reason. Ours.
///
/// `ImageProcessor.process` returns an optional (Kingfisher's API), so a processor cannot throw. The built-in
/// processors leave their reason for the pipeline (a result over ``ImageEngine/maximumPixelCount``, a crop outside
/// the image, a libvips operation that failed), and the error carries it:
///
/// ```swift
/// if case .processorError(.processingFailed(let processor as ExplainedFailureProcessor, _)) = error {
///     print(processor.reason.message)   // e.g. "a 100000 x 100000 result is more than the limit of ..."
/// }
/// ```
///
/// Its ``identifier`` is the used processor's, and it processes as that processor does.
public struct ExplainedFailureProcessor: ImageProcessor {
    /// The processor the image was to be made with.
    public let processor: any ImageProcessor
    /// Why it gave no image: the operation that failed and what libvips (or the processor) said.
    public let reason: VipsError

    /// Wraps `processor` with the `reason` it failed.
    public init(processor: any ImageProcessor, reason: VipsError) {
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
    /// The processor's reason when it said why it gave no image (see ``ExplainedFailureProcessor``); `nil` for
    /// every other error.
    public var explainedFailure: VipsError? {
        guard case .processorError(.processingFailed(let processor as ExplainedFailureProcessor, _)) = self else {
            return nil
        }
        return processor.reason
    }
}
