import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOPosix

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ImageDownloader {
    /// Sends `request` and returns the response head; when the connection turns out closed by the server before
    /// any of the response arrived, sends it once more, on a new connection, if its method is idempotent.
    ///
    /// A server may close an idle keep-alive connection at any moment without a `Connection: close` header (after
    /// each answer, say). A request sent just then goes out on the connection being closed and fails though the
    /// server never saw it, or dropped it unanswered; curl and browsers send such a request again, and so do we.
    /// The second try goes through ``freshConnectionClient``, whose connections carry one request each: the pool
    /// could otherwise hand it another connection the server has closed too (with four downloads at a time from
    /// such a server, one in five failed so). A new connection the server closes unanswered fails: that is the
    /// server's answer. It is independent of the caller's ``RetryStrategy`` and covers every redirect hop.
    func executeResendingOnClosedConnection(
        _ request: URLRequest, timeout: TimeInterval, route: HopRoute, logger: Logger?
    ) async throws -> HTTPClientResponse {
        do {
            return try await execute(request, timeout: timeout, route: route, logger: logger)
        } catch {
            guard Self.isClosedBeforeResponse(error), Self.isIdempotent(request), !Task.isCancelled else { throw error }
            return try await execute(
                request, timeout: timeout, onFreshConnection: true, route: route, logger: logger)
        }
    }

    /// Whether `error`, thrown before the response head arrived, says the connection was closed or reset.
    static func isClosedBeforeResponse(_ error: any Error) -> Bool {
        switch error {
        case let clientError as HTTPClientError:
            return clientError == .remoteConnectionClosed
        case let channelError as ChannelError:
            return channelError == .ioOnClosedChannel || channelError == .eof || channelError == .outputClosed
        case let ioError as IOError:
            return ioError.errnoCode == ECONNRESET || ioError.errnoCode == EPIPE
        default:
            return false
        }
    }

    /// Whether sending `request` twice does what sending it once does (RFC 9110, 9.2.2).
    static func isIdempotent(_ request: URLRequest) -> Bool {
        let method = (request.httpMethod ?? "GET").uppercased()
        return ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"].contains(method)
    }
}
