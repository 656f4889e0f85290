import Foundation
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

extension ProgressivePreviewer {
    /// What one preview decode needs: how many bytes of the body the completed scans take, and whom it is for.
    struct Job: Sendable {
        /// The bytes of the completed scans: a prefix of the body.
        let length: Int
        let scans: Int
        let frame: (width: Int, height: Int)
        let caller: DownloadWaiter
        let sink: PreviewSink
    }

    /// The preview of `job`, or `nil` when it does not decode or the processor gives nothing.
    ///
    /// With the default processor, a shrink-on-load decode whose long side is at most
    /// ``ImageProgressive/previewPixelSize``, its scale lowered so that its size in points is the final image's;
    /// with another processor, that processor's image for the bytes, at the options' scale. Blurred when asked.
    static func decode(_ job: Job, bytes: Data?) -> KFCrossPlatformImage? {
        guard let bytes else { return nil }
        lowerThreadPriority()
        let options = job.caller.options
        var preview: KFCrossPlatformImage
        if options.processor.identifier.isEmpty {
            let longSide = max(job.frame.width, job.frame.height)
            let side = min(longSide, ImageProgressive.previewPixelSize)
            guard let thumbnail = try? ImageDecoder.thumbnail(bytes, maxPixelSize: side, scale: 1) else {
                return nil
            }
            let density = CGFloat(max(thumbnail.pixelWidth, thumbnail.pixelHeight)) / CGFloat(longSide)
            preview = thumbnail.kf.scaled(to: options.scaleFactor * density)
        } else {
            guard let processed = options.processor.process(item: .data(bytes), options: options) else {
                return nil
            }
            preview = processed
        }
        if job.sink.progressive.isBlur, let points = blurRadius(afterScans: job.scans) {
            preview = preview.kf.blurred(withRadius: points * preview.scale)
        }
        return preview
    }

    /// The blur of a preview from `scans` completed scans, in points: less with every scan, none from the fifth on.
    static func blurRadius(afterScans scans: Int) -> CGFloat? {
        switch scans {
        case ...1: 8
        case 2: 5
        case 3, 4: 3
        default: nil
        }
    }

    /// Lowers the calling thread's priority (Linux: nice values are per thread); previews are worth less than
    /// every other decode.
    private static func lowerThreadPriority() {
        #if os(Linux)
            if getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) < 10 {
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
            }
        #endif
    }
}
