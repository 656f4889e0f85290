import Foundation
import KingfisherLocking

/// Why the built-in processor that just ran gave `nil`: it ran out of time (or, for the header check of a prefetch
/// that stores original data, the bytes were refused), or libvips gave a reason.
///
/// `ImageProcessor.process` returns an optional (Kingfisher's API), so a processor cannot say why it failed. Built-in
/// processors run synchronously inside ``run(_:item:options:)``, which gives them a note of their own (bound to the
/// calling task for the processor's extent, so two runs never see each other's); when one stops at
/// ``ImageEngine/timeLimit`` it leaves ``KingfisherError/ProcessorErrorReason/timeLimitExceeded(seconds:)`` there,
/// and the pipeline reports that instead of `processingFailed` (and instead of decoding the data a second time to
/// look for a reason). A processor called outside a run (by a user, directly) has nowhere to note: it gives `nil`.
package enum ProcessingFailure {
    /// What one run's processor noted: an error that replaces `processingFailed`, or a reason that explains it.
    private final class Note: Sendable {
        let error = Locked<KingfisherError?>(nil)
        let reason = Locked<VipsError?>(nil)
    }

    /// The note of the processor running now, bound by ``run(_:item:options:)``.
    @TaskLocal private static var note: Note?

    /// Runs `body`, noting the error it throws: a time limit becomes the retrieval's error, any other is the reason
    /// the processor gave no image (see ``ExplainedFailureProcessor``).
    package static func catching<Value>(_ body: () throws(VipsError) -> Value?) -> Value? {
        do {
            return try body()
        } catch {
            if let seconds = error.timeLimit {
                note?.error.withLock { $0 = .processorError(reason: .timeLimitExceeded(seconds: seconds)) }
            } else {
                note?.reason.withLock { $0 = error }
            }
            return nil
        }
    }

    /// Gives `nil` with `error` as the reason, for a processor of the library that knows why it failed.
    package static func fail(with error: KingfisherError) -> KFCrossPlatformImage? {
        note?.error.withLock { $0 = error }
        return nil
    }

    /// Gives `nil` with `reason` as why the processor failed (the error is then `processingFailed` with an
    /// ``ExplainedFailureProcessor``), for a processor of the package that knows why.
    package static func fail(because reason: VipsError) -> KFCrossPlatformImage? {
        note?.reason.withLock { $0 = reason }
        return nil
    }

    /// Runs `processor`, then returns its image or, when it gave `nil` after running out of time, that error, or
    /// `processingFailed` with the reason it noted; `nil` when it gave no image and no reason.
    static func run(
        _ processor: any ImageProcessor, item: ImageProcessItem, options: KingfisherParsedOptionsInfo
    ) -> Result<KFCrossPlatformImage, KingfisherError>? {
        let noted = Note()
        let image = $note.withValue(noted) { processor.process(item: item, options: options) }
        if let image { return .success(image) }
        if let error = noted.error.withLock({ $0 }) { return .failure(error) }
        if let reason = noted.reason.withLock({ $0 }) {
            let explained = ExplainedFailureProcessor(processor: processor, reason: reason)
            return .failure(.processorError(reason: .processingFailed(processor: explained, item: item)))
        }
        return nil
    }
}
