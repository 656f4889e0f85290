import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// What went wrong on the wire, read from the HTTP client's error (an `HTTPClientError`, an `IOError`, a
/// `NIOConnectionError`, a TLS error) in the terms a person uses: refused, not found, closed, timed out.
///
/// The fronts (`kf`, the image server) phrase their messages with it; ``KingfisherError``'s own descriptions keep the
/// client's error as it is, for developers.
package enum TransportFailure: Equatable, Sendable {
    /// Nothing listens at the address (`ECONNREFUSED`).
    case connectionRefused
    /// The host name has no address.
    case hostNotFound
    /// No route to the host or its network.
    case unreachable
    /// The connection was not made in time.
    case connectTimedOut
    /// The server closed or reset the connection before the whole response arrived.
    case connectionClosed
    /// The TLS handshake failed; the text is the TLS library's reason.
    case tls(String)
    /// Anything else, described by the client.
    case other(String)

    /// Classifies `error`, looking inside a failed connection attempt for its first cause.
    package init(_ error: any Error) {
        switch error {
        case let clientError as HTTPClientError:
            switch clientError {
            case .remoteConnectionClosed: self = .connectionClosed
            case .connectTimeout, .tlsHandshakeTimeout: self = .connectTimedOut
            case .readTimeout, .deadlineExceeded: self = .other("the server stopped sending")
            default: self = .other("the HTTP client refused it (\(Self.caseName(of: clientError)))")
            }
        case let ioError as IOError:
            self = Self(errno: ioError.errnoCode) ?? .other(String(cString: strerror(ioError.errnoCode)).lowercased())
        case let connectionError as NIOConnectionError:
            if let first = connectionError.connectionErrors.first {
                self = Self(first.error)
            } else if connectionError.dnsAError != nil || connectionError.dnsAAAAError != nil {
                self = .hostNotFound
            } else {
                self = .other("no address to connect to")
            }
        case is SocketAddressError:
            self = .hostNotFound
        case let channelError as ChannelError:
            switch channelError {
            case .connectTimeout: self = .connectTimedOut
            case .eof, .ioOnClosedChannel, .outputClosed, .inputClosed: self = .connectionClosed
            default: self = .other("the connection failed (\(Self.caseName(of: channelError)))")
            }
        case is NIOSSLError, is BoringSSLError, is NIOSSLExtraError:
            self = .tls(Self.tlsReason(error))
        default:
            self = .other("the connection failed")
        }
    }

    /// A TLS failure in words: the usual causes named, the rest as a handshake failure.
    private static func tlsReason(_ error: any Error) -> String {
        let text = String(describing: error)
        if text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("certificate verify failed") {
            return "its certificate could not be verified (self-signed, expired, or from an unknown authority)"
        }
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return "its certificate is for another host name"
        }
        if text.contains("WRONG_VERSION_NUMBER") { return "it does not speak TLS on that port (try http://)" }
        return "the TLS handshake failed"
    }

    /// `name` of `Type.name` or `Type.name(...)`: an error enum's case, without its type.
    private static func caseName(of error: any Error) -> String {
        let text = String(describing: error)
        let afterType = text.split(separator: ".", maxSplits: 1).last.map(String.init) ?? text
        return String(afterType.prefix { $0.isLetter || $0.isNumber })
    }

    private init?(errno code: CInt) {
        switch code {
        case ECONNREFUSED: self = .connectionRefused
        case ECONNRESET, EPIPE: self = .connectionClosed
        case ETIMEDOUT: self = .connectTimedOut
        case ENETUNREACH, EHOSTUNREACH: self = .unreachable
        default: return nil
        }
    }

    /// The failure as the end of a sentence about connecting to `host` (`"127.0.0.1:8080"`).
    package func sentence(host: String) -> String {
        switch self {
        case .connectionRefused: "could not connect to \(host): the connection was refused (is the server running?)"
        case .hostNotFound: "could not find the host \(host) (check the name, or the network's DNS)"
        case .unreachable: "could not reach \(host): no route to it"
        case .connectTimedOut: "could not connect to \(host) in time"
        case .connectionClosed: "\(host) closed the connection before the whole image arrived"
        case .tls(let reason): "the secure connection to \(host) failed: \(reason)"
        case .other(let reason): "the transfer from \(host) failed: \(reason)"
        }
    }
}
