public import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import AsyncHTTPClient

/// Retries downloads that failed because the connection failed (refused, reset, closed early, could not be
/// made in time), for up to `timeoutInterval` seconds after the first failure, waiting a little longer before
/// each try (0.1 s, 0.2 s, 0.4 s... at most 2 s).
///
/// - Note: Kingfisher's `NetworkRetryStrategy` waits for an `NWPathMonitor` to report the network back. Linux has
///   no such monitor, so this one retries on connection errors with a backoff instead. HTTP status errors and
///   bad data are not retried: use ``DelayRetryStrategy`` for those.
public struct NetworkRetryStrategy: RetryStrategy {
    /// How long after the first failure retries may still start. `30` seconds by default.
    public let timeoutInterval: TimeInterval

    public init(timeoutInterval: TimeInterval = 30) {
        self.timeoutInterval = timeoutInterval
    }

    public func retry(context: RetryContext, retryHandler: @escaping @Sendable (RetryDecision) -> Void) {
        let now = Date()
        let firstFailure = (context.userInfo as? Date) ?? now
        guard Self.isConnectionError(context.error), now.timeIntervalSince(firstFailure) < timeoutInterval else {
            retryHandler(.stop)
            return
        }
        let delay = min(2, 0.1 * pow(2, Double(min(context.retriedCount, 10))))
        RetryTimer.after(seconds: delay) { retryHandler(.retry(userInfo: firstFailure)) }
    }

    /// Whether `error` says the connection failed rather than the server or the data.
    static func isConnectionError(_ error: KingfisherError) -> Bool {
        guard case .responseError(reason: .URLSessionError(let underlying)) = error else { return false }
        if underlying is NIOConnectionError || underlying is IOError { return true }
        if let channelError = underlying as? ChannelError {
            switch channelError {
            case .connectTimeout, .ioOnClosedChannel, .eof, .outputClosed: return true
            default: return false
            }
        }
        if let parserError = underlying as? HTTPParserError {
            // The connection closed before the body was complete.
            return parserError == .invalidEOFState || parserError == .closedConnection
        }
        if let clientError = underlying as? HTTPClientError {
            return [.connectTimeout, .remoteConnectionClosed, .bodyLengthMismatch]
                .contains(clientError)
        }
        return false
    }
}
