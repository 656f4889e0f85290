public import Foundation

/// Why a retry is being considered: the failed URL, the error and how many retries came before.
///
/// - Note: Kingfisher's context carries the `Source`; the downloader knows only the URL, so this one carries
///   `url`. `userInfo` is `(any Sendable)?` instead of `Any?`.
public final class RetryContext: Sendable {
    /// The URL that failed.
    public let url: URL
    /// The error of the last attempt.
    public let error: KingfisherError
    /// Retries already made for this download; `0` on the first failure.
    public let retriedCount: Int
    /// What the strategy passed in its last ``RetryDecision/retry(userInfo:)``; `nil` on the first failure.
    public let userInfo: (any Sendable)?

    init(url: URL, error: KingfisherError, retriedCount: Int, userInfo: (any Sendable)?) {
        self.url = url
        self.error = error
        self.retriedCount = retriedCount
        self.userInfo = userInfo
    }
}

/// What a ``RetryStrategy`` decided.
public enum RetryDecision: Sendable {
    /// Try again; `userInfo` comes back in the next ``RetryContext``.
    case retry(userInfo: (any Sendable)?)
    /// Give up and report the error.
    case stop
}

/// Decides whether a failed download is tried again. Set one with the `.retryStrategy` option.
///
/// Cancellation is never retried. Each caller retries on its own; concurrent retries of one URL are coalesced
/// into one request like any other downloads.
public protocol RetryStrategy: Sendable {
    /// Calls `retryHandler` exactly once, now or later, with the decision for `context`.
    func retry(context: RetryContext, retryHandler: @escaping @Sendable (RetryDecision) -> Void)
}

/// Retries any failure up to `maxRetryCount` times, waiting `retryInterval` before each retry.
public struct DelayRetryStrategy: RetryStrategy {
    /// How long to wait before a retry.
    public enum Interval: Sendable {
        /// The same wait every time.
        case seconds(TimeInterval)
        /// `n` times the value before the n-th retry (1, 2, 3... x value).
        case accumulated(TimeInterval)
        /// A wait computed from the number of retries already made.
        case custom(block: @Sendable (_ retriedCount: Int) -> TimeInterval)

        func timeInterval(for retriedCount: Int) -> TimeInterval {
            switch self {
            case .seconds(let value): value
            case .accumulated(let value): Double(retriedCount + 1) * value
            case .custom(let block): block(retriedCount)
            }
        }
    }

    /// The most retries made; the download is tried at most `maxRetryCount + 1` times.
    public let maxRetryCount: Int
    /// The wait before each retry. `.seconds(3)` by default.
    public let retryInterval: Interval

    public init(maxRetryCount: Int, retryInterval: Interval = .seconds(3)) {
        self.maxRetryCount = maxRetryCount
        self.retryInterval = retryInterval
    }

    public func retry(context: RetryContext, retryHandler: @escaping @Sendable (RetryDecision) -> Void) {
        guard context.retriedCount < maxRetryCount, !context.error.isTaskCancelled else {
            retryHandler(.stop)
            return
        }
        let delay = max(0, retryInterval.timeInterval(for: context.retriedCount))
        RetryTimer.after(seconds: delay) { retryHandler(.retry(userInfo: context.userInfo)) }
    }
}

/// Runs a block after a delay without needing a main run loop.
enum RetryTimer {
    static func after(seconds: TimeInterval, _ block: @escaping @Sendable () -> Void) {
        guard seconds > 0 else {
            block()
            return
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: block)
    }
}
