import Foundation
import Kingfisher
import Logging
import KingfisherLocking

/// Sources whose image was not stored in the disk cache, grouped by why, so a run names each reason once (a full
/// disk fails every write the same way) instead of once per file.
final class CacheWriteFailures: Sendable {
    private struct State {
        var keys: Set<String> = []
        /// Each cause with how many writes it failed, in the order first seen.
        var causes: [(cause: String, count: Int)] = []
    }

    private let state = Locked(State())
    let directory: URL

    init(directory: URL) {
        self.directory = directory
    }

    /// A logger for ``ImageCache/logger`` that records the cache's failed writes here (and nothing else).
    var logger: Logger {
        Logger(label: "kf.cache") { _ in Handler(failures: self) }
    }

    /// The handler behind ``logger``, to combine with others.
    var handler: any LogHandler { Handler(failures: self) }

    /// Records that nothing was stored under `computedKey` because of `cause`.
    func note(computedKey: String, cause: String) {
        state.withLock { state in
            guard state.keys.insert(computedKey).inserted else { return }
            if let index = state.causes.firstIndex(where: { $0.cause == cause }) {
                state.causes[index].count += 1
            } else {
                state.causes.append((cause, 1))
            }
        }
    }

    /// Records a failure the manager returned (`RetrieveImageResult.diskStoreError`).
    func note(computedKey: String, error: KingfisherError) {
        note(computedKey: computedKey, cause: Self.cause(of: error))
    }

    /// Whether the write for `computedKey` failed.
    func contains(computedKey: String) -> Bool {
        state.withLock { $0.keys.contains(computedKey) }
    }

    /// One `error:` line per cause, for the end of a run; empty when every write succeeded.
    var summaryLines: [String] {
        state.withLock { state in
            state.causes.map { entry in
                let images = entry.count == 1 ? "1 image was" : "\(entry.count) images were"
                return "error: \(images) not stored in the cache \(directory.path): \(entry.cause)"
            }
        }
    }

    /// What the file system said for a file that could not be written; the whole description otherwise.
    static func cause(of error: KingfisherError) -> String {
        if case .cacheError(reason: .cannotCreateCacheFile(_, _, _, let underlying)) = error { return "\(underlying)" }
        return error.errorDescription ?? "\(error)"
    }

    /// Passes the cache's "write failed" events (they carry `kf.key` and `kf.cause`) to the failures.
    private struct Handler: LogHandler {
        let failures: CacheWriteFailures
        var metadata: Logger.Metadata = [:]
        var metadataProvider: Logger.MetadataProvider?
        var logLevel: Logger.Level = .warning

        func log(event: LogEvent) {
            // Images only: the HTTP record written beside an image is not one more image that was not stored.
            guard let key = event.metadata?["kf.key"], let cause = event.metadata?["kf.cause"],
                event.metadata?["kf.file"]?.description != "http-record"
            else { return }
            failures.note(computedKey: key.description, cause: cause.description)
        }

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
    }
}
