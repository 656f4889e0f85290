import Foundation

/// Why the last built-in processor on this thread gave `nil`, when it ran out of time (or, for the header check of
/// a prefetch that stores original data, why the bytes were refused).
///
/// `ImageProcessor.process` returns an optional (Kingfisher's API), so a processor cannot say why it failed. Built-in
/// processors run synchronously on the thread that called them; when one stops at ``ImageEngine/timeLimit`` it
/// leaves ``KingfisherError/ProcessorErrorReason/timeLimitExceeded(seconds:)`` here, and the pipeline reports that
/// instead of `processingFailed` (and instead of decoding the data a second time to look for a reason).
package enum ProcessingFailure {
    private static let key = "com.onevcat.Kingfisher.ProcessingFailure"

    private static let reasonKey = "com.onevcat.Kingfisher.ProcessingFailure.reason"

    /// Runs `body`, noting the error it throws: a time limit becomes the retrieval's error, any other is the reason
    /// the processor gave no image (see ``ExplainedFailureProcessor``).
    package static func catching<Value>(_ body: () throws(VipsError) -> Value?) -> Value? {
        do {
            return try body()
        } catch {
            if let seconds = error.timeLimit {
                Thread.current.threadDictionary[key] = KingfisherError.processorError(
                    reason: .timeLimitExceeded(seconds: seconds))
            } else {
                note(error)
            }
            return nil
        }
    }

    /// Gives `nil` with `error` as the reason, for a processor of the library that knows why it failed.
    package static func fail(with error: KingfisherError) -> KFCrossPlatformImage? {
        Thread.current.threadDictionary[key] = error
        return nil
    }

    /// Gives `nil` with `reason` as why the processor failed (the error is then `processingFailed` with an
    /// ``ExplainedFailureProcessor``), for a processor of the package that knows why.
    package static func fail(because reason: VipsError) -> KFCrossPlatformImage? {
        note(reason)
        return nil
    }

    private static func note(_ reason: VipsError) {
        Thread.current.threadDictionary[reasonKey] = ReasonBox(reason)
    }

    /// Runs `processor`, then returns its image or, when it gave `nil` after running out of time, that error, or
    /// `processingFailed` with the reason it noted; `nil` when it gave no image and no reason.
    static func run(
        _ processor: any ImageProcessor, item: ImageProcessItem, options: KingfisherParsedOptionsInfo
    ) -> Result<KFCrossPlatformImage, KingfisherError>? {
        let thread = Thread.current
        thread.threadDictionary.removeObject(forKey: key)
        thread.threadDictionary.removeObject(forKey: reasonKey)
        defer {
            thread.threadDictionary.removeObject(forKey: key)
            thread.threadDictionary.removeObject(forKey: reasonKey)
        }
        if let image = processor.process(item: item, options: options) { return .success(image) }
        if let error = thread.threadDictionary[key] as? KingfisherError { return .failure(error) }
        if let noted = thread.threadDictionary[reasonKey] as? ReasonBox {
            let explained = ExplainedFailureProcessor(processor: processor, reason: noted.reason)
            return .failure(.processorError(reason: .processingFailed(processor: explained, item: item)))
        }
        return nil
    }

    /// A reason in the thread's dictionary (which holds objects).
    private final class ReasonBox: Sendable {
        let reason: VipsError
        init(_ reason: VipsError) { self.reason = reason }
    }
}
