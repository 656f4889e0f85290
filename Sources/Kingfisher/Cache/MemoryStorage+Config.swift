public import Foundation

extension MemoryStorage {
    /// Limits and timing of a ``MemoryStorage/Backend``.
    ///
    /// - Note: Kingfisher's `keepWhenEnteringBackground` is omitted: Linux processes have no background state.
    public struct Config: Sendable {
        /// The most total cost (``CacheCostCalculable/cacheCost``, bytes for images) the storage holds; the least
        /// recently used values are evicted beyond it. `0` means no limit.
        public var totalCostLimit: Int

        /// The most values the storage holds; the least recently used are evicted beyond it.
        /// `Int.max` (no limit) by default.
        public var countLimit: Int = .max

        /// How long a value lives when stored without its own expiration. `.seconds(300)` by default.
        public var expiration: StorageExpiration = .seconds(300)

        /// Seconds between sweeps that drop expired values. `120` by default. Fixed when the backend is created.
        ///
        /// - Note: Kingfisher runs this on a main-run-loop `Timer`; here it is a task that needs no run loop.
        public let cleanInterval: TimeInterval

        /// The clock that decides expiration. `Date.init` by default; ours, so tests can move time.
        public var now: @Sendable () -> Date = { Date() }

        /// - Parameters:
        ///   - totalCostLimit: see ``totalCostLimit``.
        ///   - cleanInterval: see ``cleanInterval``; `120` seconds by default.
        public init(totalCostLimit: Int, cleanInterval: TimeInterval = 120) {
            self.totalCostLimit = totalCostLimit
            self.cleanInterval = cleanInterval
        }
    }
}
