extension DiskStorage {
    /// What a disk cache holds, from ``Backend/summary()``.
    public struct Summary: Sendable, Hashable {
        /// Cached files.
        public var fileCount = 0
        /// Their total length in bytes.
        public var totalSize: UInt = 0
        /// Files whose expiration date has passed (removed by the next sweep or `removeExpiredValues()`).
        public var expiredCount = 0
        /// The expired files' total length in bytes.
        public var expiredSize: UInt = 0

        public init() {}
    }
}
