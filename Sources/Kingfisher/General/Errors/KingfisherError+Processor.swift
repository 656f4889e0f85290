public import Foundation

extension KingfisherError {
    /// Decoding, encoding or processing an image failed.
    public enum ProcessorErrorReason: Sendable {
        /// `processor` returned `nil` for `item`. When the data is not an image (empty, not an image format,
        /// corrupt) `processor` is a ``DecodingFailedProcessor`` with the decoder's reason, as Kingfisher reports
        /// such data; ``KingfisherError/underlyingReason`` gives it. Code 4001.
        case processingFailed(processor: any ImageProcessor, item: ImageProcessItem)
        /// The data was empty. Code 4002.
        case emptyImageData
        /// The data is in a format this build cannot decode (`.unknown` when no format was recognised). Code 4003.
        case unsupportedImageFormat(ImageFormat)
        /// libvips could not decode data it recognised: truncated, corrupt, or a failing codec. Code 4004.
        case imageDecodingFailed(format: ImageFormat, error: VipsError)
        /// The image declares more pixels than ``ImageEngine/maximumPixelCount`` allows; nothing was decoded.
        /// For an animated image `height` counts every frame. Code 4005.
        case pixelLimitExceeded(width: Int, height: Int, limit: Int)
        /// The image could not be encoded in `format`; `error` is `nil` when the format has no encoder here.
        /// Code 4006.
        case imageEncodingFailed(format: ImageFormat, error: VipsError?)
        /// A pixel buffer's size does not match `width * height * 4`. Code 4007.
        case invalidPixelBuffer(width: Int, height: Int, byteCount: Int)
        /// The animation declares more frames than ``ImageEngine/maximumFrameCount`` allows; nothing was decoded.
        /// Code 4008.
        case frameLimitExceeded(frames: Int, limit: Int)
        /// Decoding or processing was stopped at its time limit of `seconds` (see ``ImageEngine/timeLimit``), or
        /// refused because drawing it (an SVG) would take longer. Code 4009.
        case timeLimitExceeded(seconds: TimeInterval)
    }
}

extension KingfisherError.ProcessorErrorReason {
    public var errorCode: Int {
        switch self {
        case .processingFailed: 4001
        case .emptyImageData: 4002
        case .unsupportedImageFormat: 4003
        case .imageDecodingFailed: 4004
        case .pixelLimitExceeded: 4005
        case .imageEncodingFailed: 4006
        case .invalidPixelBuffer: 4007
        case .frameLimitExceeded: 4008
        case .timeLimitExceeded: 4009
        }
    }

    public var errorDescription: String {
        switch self {
        case .processingFailed(let processor as DecodingFailedProcessor, _):
            return "The processor \"\(processor.identifier)\" could not process the data: "
                + processor.reason.errorDescription
        case .processingFailed(let processor as ExplainedFailureProcessor, _):
            let said = processor.reason.message.isEmpty ? "\(processor.reason)" : processor.reason.message
            return "The processor \"\(processor.identifier)\" could not process the image: \(said)"
        case .processingFailed(let processor, _):
            return "The processor \"\(processor.identifier)\" could not process the image."
        case .emptyImageData:
            return "The image data is empty (0 bytes)."
        case .unsupportedImageFormat(.unknown):
            return "The data is not in an image format that can be decoded (no known header recognised)."
        case .unsupportedImageFormat(let format):
            return "The data is \(format), which the installed libvips cannot decode."
        case .imageDecodingFailed(let format, let error):
            return "Decoding \(format) data failed: \(error)"
        case .pixelLimitExceeded(let width, let height, let limit):
            return "The image declares \(width) x \(height) pixels, over the limit of \(limit) pixels "
                + "(ImageEngine.maximumPixelCount); nothing was decoded."
        case .imageEncodingFailed(let format, .none):
            return "Encoding to \(format) is not supported by the installed libvips."
        case .imageEncodingFailed(let format, .some(let error)):
            return "Encoding the image to \(format) failed: \(error)"
        case .invalidPixelBuffer(let width, let height, let byteCount):
            let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
            let valid = !overflow && width > 0 && height > 0 && pixels <= Int.max / 4
            let size = valid ? "\(pixels * 4) bytes" : "a positive width and height that fit in memory"
            return "A \(width) x \(height) RGBA8 image needs \(size), but the buffer has \(byteCount) bytes."
        case .frameLimitExceeded(let frames, let limit):
            return "The animation declares \(frames) frames, over the limit of \(limit) frames "
                + "(ImageEngine.maximumFrameCount); nothing was decoded."
        case .timeLimitExceeded(let seconds):
            let limit = String(format: "%.1f", seconds)
            return "Decoding or processing the image was stopped: it reached, or was set to overrun, its time "
                + "limit of \(limit) s (ImageEngine.timeLimit)."
        }
    }
}
