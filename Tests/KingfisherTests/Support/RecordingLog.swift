import Logging
import KingfisherLocking

/// A logger whose entries the test reads back: what the library logs, and only that.
final class RecordingLog: Sendable {
    struct Entry: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
    }

    private let recorded = Locked<[Entry]>([])

    var entries: [Entry] { recorded.withLock { $0 } }

    var logger: Logger {
        var logger = Logger(label: "test") { _ in Handler(log: self) }
        logger.logLevel = .trace
        return logger
    }

    /// A handler recording here, for a logger made elsewhere.
    var handler: any LogHandler { Handler(log: self) }

    /// The entries whose message is `message`.
    func entries(_ message: String) -> [Entry] { entries.filter { $0.message == message } }

    fileprivate func append(_ entry: Entry) {
        recorded.withLock { $0.append(entry) }
    }

    private struct Handler: LogHandler {
        let log: RecordingLog
        var metadata: Logger.Metadata = [:]
        var metadataProvider: Logger.MetadataProvider?
        var logLevel: Logger.Level = .trace

        func log(event: LogEvent) {
            // The logger's own metadata (set on a copy, as AsyncHTTPClient sets its request ID), then the event's.
            let metadata = self.metadata.merging(event.metadata ?? [:]) { $1 }.mapValues { $0.description }
            log.append(Entry(level: event.level, message: event.message.description, metadata: metadata))
        }

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
    }
}
