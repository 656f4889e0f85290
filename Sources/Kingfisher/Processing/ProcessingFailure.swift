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

    /// Runs `body`, noting a time-limit error it throws; other errors give `nil` as before.
    package static func catching<Value>(_ body: () throws(VipsError) -> Value?) -> Value? {
        do {
            return try body()
        } catch {
            if let seconds = error.timeLimit {
                Thread.current.threadDictionary[key] = KingfisherError.processorError(
                    reason: .timeLimitExceeded(seconds: seconds))
            }
            return nil
        }
    }

    /// Gives `nil` with `error` as the reason, for a processor of the library that knows why it failed.
    package static func fail(with error: KingfisherError) -> KFCrossPlatformImage? {
        Thread.current.threadDictionary[key] = error
        return nil
    }

    /// Runs `processor`, then returns its image or, when it gave `nil` after running out of time, that error.
    static func run(
        _ processor: any ImageProcessor, item: ImageProcessItem, options: KingfisherParsedOptionsInfo
    ) -> Result<KFCrossPlatformImage, KingfisherError>? {
        Thread.current.threadDictionary.removeObject(forKey: key)
        defer { Thread.current.threadDictionary.removeObject(forKey: key) }
        if let image = processor.process(item: item, options: options) { return .success(image) }
        if let error = Thread.current.threadDictionary[key] as? KingfisherError { return .failure(error) }
        return nil
    }
}
