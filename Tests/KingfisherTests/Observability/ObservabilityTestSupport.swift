import CoreMetrics
import Foundation
import Logging
import MetricsTestKit

/// Runs `body` with a metrics factory of its own bound to the task (swift-metrics' `withMetricsFactory`): the
/// components `body` creates make their metrics there, so a test reads its own values while other suites run in
/// parallel, and nothing is bootstrapped for the process.
func withTestMetrics<T>(_ body: (TestMetrics) async throws -> T) async throws -> T {
    let metrics = TestMetrics()
    return try await withMetricsFactory(metrics) { try await body(metrics) }
}

extension TestMetrics {
    /// The total of the counter `label` with exactly `dimensions`; `0` when it was never made.
    func total(_ label: String, _ dimensions: [(String, String)]) -> Int64 {
        (try? expectCounter(label, dimensions))?.totalValue ?? 0
    }

    /// How many durations the timer `label` with `dimensions` recorded.
    func recordedCount(_ label: String, _ dimensions: [(String, String)]) -> Int {
        (try? expectTimer(label, dimensions))?.values.count ?? 0
    }
}

/// Everything logged through swift-log's global `LoggingSystem` in this process: the library must never log
/// there (a component without a logger logs nothing). Bootstrapped once, on first use; the tests' own loggers
/// are made with explicit handlers, so they never reach it.
enum GlobalLogRecorder {
    static let log: RecordingLog = {
        let log = RecordingLog()
        LoggingSystem.bootstrap { _ in log.handler }
        return log
    }()
}
