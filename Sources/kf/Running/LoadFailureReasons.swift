import Kingfisher
import KingfisherLocking
import Logging

/// Why prefetched sources failed, by cache key: `ImagePrefetcher`'s blocks list failed sources without reasons,
/// and it tells the cache's logger each reason in a warning carrying `kf.key` and `kf.error`.
final class LoadFailureReasons: Sendable {
    private let reasons = Locked<[String: KingfisherError]>([:])

    /// A handler for the cache's logger that records those warnings (and nothing else).
    var handler: any LogHandler { Handler(reasons: self) }

    /// Why the source cached under `key` failed, if the prefetcher said.
    func error(forKey key: String) -> KingfisherError? {
        reasons.withLock { $0[key] }
    }

    private struct Handler: LogHandler {
        let reasons: LoadFailureReasons
        var metadata: Logger.Metadata = [:]
        var metadataProvider: Logger.MetadataProvider?
        var logLevel: Logger.Level = .warning

        func log(event: LogEvent) {
            // A warning with `kf.cause` is a failed write (CacheWriteFailures counts those), not why a source failed.
            guard event.level == .warning, event.metadata?["kf.cause"] == nil, let key = event.metadata?["kf.key"],
                let error = event.metadata?["kf.error"]?.loggedError
            else { return }
            reasons.reasons.withLock { $0[key.description] = error }
        }

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
    }
}
