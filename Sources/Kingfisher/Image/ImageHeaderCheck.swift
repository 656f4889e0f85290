import Foundation

/// Whether bytes may be stored as an image without decoding them: what a prefetch that keeps original data
/// checks instead of decoding (see ``ImagePrefetcher``).
///
/// The bytes must be in a format that decodes here, with a header its libvips loader reads (header only: libvips
/// is lazy, no pixel is computed), declaring no more pixels than ``ImageEngine/maximumPixelCount`` and no more
/// frames than ``ImageEngine/maximumFrameCount``. A failure is the error a decode would give at that point, reported
/// as a decode's is: bytes that are not an image as `processingFailed` with a ``DecodingFailedProcessor`` naming
/// `processor` and the precise reason, a limit with its own reason.
///
/// What only decoding finds (a body cut short after its header, corrupt compressed data) passes: such a file
/// fails when a retrieval decodes it, which then loads the source again.
enum ImageHeaderCheck {
    static func check(
        _ data: Data, allFrames: Bool, processor: any ImageProcessor
    ) -> Result<Void, KingfisherError> {
        do {
            try ImageDecoder.checkHeader(of: data, allFrames: allFrames)
            return .success(())
        } catch {
            guard case .processorError(let reason) = error, reason.meansNotAnImage else { return .failure(error) }
            let failed = DecodingFailedProcessor(processor: processor, reason: reason)
            return .failure(.processorError(reason: .processingFailed(processor: failed, item: .data(data))))
        }
    }

    /// The processor a download runs instead of decoding: it checks the header and gives an empty image
    /// (`KFCrossPlatformImage()`), so the bytes come back in ``ImageLoadingResult/originalData`` undecoded. A
    /// failed check is reported with its error (through ``ProcessingFailure``), not as this processor failing.
    struct Processor: ImageProcessor {
        /// Whether every frame of an animation counts (the retrieval would decode them all).
        let allFrames: Bool
        /// The processor the caller asked for, named in the error when the bytes are not an image.
        let reported: any ImageProcessor

        var identifier: String {
            "com.onevcat.Kingfisher.ImageHeaderCheck(\(allFrames ? "all" : "first"))"
        }

        func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
            switch item {
            case .image(let image):
                return image
            case .data(let data):
                switch ImageHeaderCheck.check(data, allFrames: allFrames, processor: reported) {
                case .success: return KFCrossPlatformImage()
                case .failure(let error): return ProcessingFailure.fail(with: error)
                }
            }
        }
    }
}
