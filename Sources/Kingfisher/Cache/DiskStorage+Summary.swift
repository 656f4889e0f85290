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
        /// Temporary files of writes: in progress, or left by a process that was killed (removed when the
        /// storage is opened or swept).
        public var temporaryCount = 0
        /// Their total length in bytes.
        public var temporarySize: UInt = 0

        public init() {}
    }
}
