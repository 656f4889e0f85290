package import ArgumentParser
package import Logging

/// `--log-level`: the library's log, to stderr. Off unless given.
package struct LoggingOptions: ParsableArguments {
    package init() {}

    @Option(
        help: ArgumentHelp(
            "Log Kingfisher's events to stderr from this level up (trace, debug, info, notice, warning, error, "
                + "critical). Off by default.",
            valueName: "LEVEL"),
        transform: Self.level(named:))
    package var logLevel: Logger.Level?

    /// Bootstraps swift-log to stderr at the level given and returns a logger for the library; `nil` (nothing
    /// bootstrapped, nothing logged) without `--log-level`. Call once per process.
    package func bootstrap() -> Logger? {
        guard let logLevel else { return nil }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = logLevel
            return handler
        }
        return Logger(label: "kf")
    }

    private static func level(named name: String) throws -> Logger.Level {
        guard let level = Logger.Level(rawValue: name.lowercased()) else {
            let names = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationError("--log-level must be one of \(names).")
        }
        return level
    }
}
