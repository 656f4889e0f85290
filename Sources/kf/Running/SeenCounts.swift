import Kingfisher
import KingfisherLocking

/// Turns the prefetcher's cumulative lists into one event per newly finished source.
final class SeenCounts: Sendable {
    private let counts = Locked((skipped: 0, failed: 0, completed: 0))

    /// Calls `each` for the sources past the counts seen so far, then remembers the new counts.
    func report(
        skipped: [Source], failed: [Source], completed: [Source],
        each: (ProgressReporter.Outcome, Source) -> Void
    ) {
        let fresh = counts.withLock { seen -> [(ProgressReporter.Outcome, Source)] in
            // Blocks may arrive out of order from different threads: counts only grow.
            defer {
                seen = (
                    max(seen.skipped, skipped.count), max(seen.failed, failed.count),
                    max(seen.completed, completed.count)
                )
            }
            return skipped.dropFirst(seen.skipped).map { (.skipped, $0) }
                + failed.dropFirst(seen.failed).map { (.failed, $0) }
                + completed.dropFirst(seen.completed).map { (.completed, $0) }
        }
        for (outcome, source) in fresh { each(outcome, source) }
    }
}
