public import Foundation
import KingfisherLocking

extension ImageEngine {
    /// The limits and the resources of decoding: what a ``KingfisherManager``, an ``ImageDownloader`` or an
    /// ``ImageCache`` applies to the decodes and processing runs it makes, so that two of them in one process (a
    /// server's thumbnails and its uploads, say) can differ. Ours.
    ///
    /// ```swift
    /// var strict = ImageEngine.Configuration()
    /// strict.maximumPixelCount = 20_000_000
    /// strict.decodeConcurrency = 1
    /// let manager = KingfisherManager(downloader: ImageDownloader(name: "uploads"), cache: cache)
    /// manager.engine = strict
    /// ```
    ///
    /// Each owner starts with ``default``, which the process-wide settings (``ImageEngine/maximumPixelCount``,
    /// ``ImageEngine/maximumFrameCount``, ``ImageEngine/timeLimit``) read and write. A decode outside any owner
    /// (`KFCrossPlatformImage(decoding:)` called directly) uses ``default``. The response size limit belongs to the
    /// downloader: ``ImageDownloader/Configuration/maximumResponseSize``.
    public struct Configuration: Sendable, Hashable {
        /// The most pixels (width × height, all frames of an animation counted) an image may declare; larger ones
        /// are refused from their header with ``KingfisherError/ProcessorErrorReason/pixelLimitExceeded(width:height:limit:)``.
        /// 100 megapixels by default; values below 1 count as 1.
        public var maximumPixelCount: Int {
            didSet { maximumPixelCount = max(1, maximumPixelCount) }
        }
        /// The most frames an animation may declare. 3,000 by default; values below 1 count as 1.
        public var maximumFrameCount: Int {
            didSet { maximumFrameCount = max(1, maximumFrameCount) }
        }
        /// How long one decode or processing run may compute (see ``ImageEngine/timeLimit``).
        public var timeLimit: TimeLimit
        /// How many decodes and processing runs of one owner happen at once: its worker threads. One
        /// per core by default; values below 1 count as 1.
        public var decodeConcurrency: Int {
            didSet { decodeConcurrency = max(1, decodeConcurrency) }
        }
        /// Whether memory-hungry decodes (an image declaring 8 megapixels or more; a progressive JPEG keeps every
        /// coefficient until its last scan) wait for each other, one at a time per owner, before they take a
        /// thread. `true` by default: two at once on two cores doubled a prefetch's peak memory.
        public var largeDecodesOneAtATime: Bool

        public init(
            maximumPixelCount: Int = 100_000_000, maximumFrameCount: Int = 3_000, timeLimit: TimeLimit = TimeLimit(),
            decodeConcurrency: Int = ProcessInfo.processInfo.activeProcessorCount, largeDecodesOneAtATime: Bool = true
        ) {
            self.maximumPixelCount = max(1, maximumPixelCount)
            self.maximumFrameCount = max(1, maximumFrameCount)
            self.timeLimit = timeLimit
            self.decodeConcurrency = max(1, decodeConcurrency)
            self.largeDecodesOneAtATime = largeDecodesOneAtATime
        }

        private static let shared = Locked(Configuration())

        /// The configuration owners start with, and decodes outside any owner use; the process-wide settings of
        /// ``ImageEngine`` read and write it.
        public static var `default`: Configuration {
            get { shared.withLock { $0 } }
            set { shared.withLock { $0 = newValue } }
        }

        /// Changes ``default`` in one step, so concurrent changes of different settings do not undo each other.
        static func changeDefault(_ change: (inout Configuration) -> Void) {
            shared.withLock { change(&$0) }
        }

        /// The configuration the work running in this task was started with (its workers binds it for the
        /// job), else ``default``.
        static var current: Configuration {
            applied?.configuration ?? .default
        }

        /// The workers' job running in this task (its whole-job deadline, whether it was abandoned), if any.
        static var currentRun: ProcessingRun? {
            applied?.run
        }

        /// Runs `body` with `configuration` as ``current`` for the calling task (and for code it calls on this
        /// thread), as the job `run` when one is given.
        static func applying<T>(_ configuration: Configuration?, run: ProcessingRun? = nil, _ body: () -> T) -> T {
            guard let configuration else { return body() }
            return $applied.withValue(Applied(configuration: configuration, run: run ?? applied?.run)) { body() }
        }

        private struct Applied: Sendable {
            let configuration: Configuration
            let run: ProcessingRun?
        }

        /// What the job in progress applies: bound by ``applying(_:run:_:)`` for one job's extent, in the task that
        /// runs it, never shared between owners or jobs (a task-local value, not a thread's or the process's).
        @TaskLocal private static var applied: Applied?
    }
}
