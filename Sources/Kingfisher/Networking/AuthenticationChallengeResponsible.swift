import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// Decides whether an HTTPS server is trusted: Kingfisher's authentication challenge responder, mapped onto the
/// HTTP client's TLS certificate check. Set one as ``ImageDownloader/authenticationChallengeResponder``.
///
/// Before each HTTPS request the downloader asks its responder with a server-trust challenge for the request's host
/// (a `URLProtectionSpace` with ``ImageDownloader/serverTrustAuthenticationMethod``, host, port and `https`) and applies the
/// answer to that request's connection:
/// - `.useCredential`: the certificate is accepted without verification (a self-signed server); the credential is
///   not looked at.
/// - `.performDefaultHandling`, `.rejectProtectionSpace`: the certificate is verified as usual.
/// - `.cancelAuthenticationChallenge`: no connection is made; the download fails with
///   ``KingfisherError/ResponseErrorReason/URLSessionError(error:)`` wrapping `URLError(.cancelled)`.
///
/// The default (the downloader itself) trusts exactly the ``ImageDownloader/trustedHosts``.
///
/// - Note: On Linux there is no `URLSession` and no Security framework. So the challenge comes before the
///   connection, not during its TLS handshake: `protectionSpace.serverTrust` does not exist and the server's
///   certificate cannot be inspected, and a `URLCredential(trust:)` cannot be made. Connections are pooled per TLS
///   setting, so a trusted and a verified request never share one. Kingfisher's task-level method
///   (`downloader(_:task:didReceive:)`, for HTTP authentication) has no counterpart: there is no `URLSessionTask`,
///   and a 401 is an ``KingfisherError/ResponseErrorReason/invalidHTTPStatusCode(response:)``; send credentials
///   with a request modifier. Unlike Kingfisher's, the protocol is `Sendable`: the downloader asks from its own
///   threads.
public protocol AuthenticationChallengeResponsible: AnyObject, Sendable {
    /// The decision on `challenge`, a server-trust challenge for the host about to be contacted.
    func downloader(
        _ downloader: ImageDownloader, didReceive challenge: URLAuthenticationChallenge
    ) async -> (URLSession.AuthChallengeDisposition, URLCredential?)
}

extension AuthenticationChallengeResponsible {
    /// Uses the credential (trusts the server) when the challenge is for a host in the downloader's
    /// ``ImageDownloader/trustedHosts``; the default handling otherwise.
    public func downloader(
        _ downloader: ImageDownloader, didReceive challenge: URLAuthenticationChallenge
    ) async -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        let space = challenge.protectionSpace
        if space.authenticationMethod == ImageDownloader.serverTrustAuthenticationMethod,
            downloader.trustedHosts?.contains(space.host) == true
        {
            return (.useCredential, nil)
        }
        return (.performDefaultHandling, nil)
    }
}

extension ImageDownloader: AuthenticationChallengeResponsible {}

/// The sender of the challenges the downloader makes: the answer is the responder's return value, so it does
/// nothing.
private final class ServerTrustChallengeSender: NSObject, URLAuthenticationChallengeSender {
    func use(_ credential: URLCredential, for challenge: URLAuthenticationChallenge) {}
    func continueWithoutCredential(for challenge: URLAuthenticationChallenge) {}
    func cancel(_ challenge: URLAuthenticationChallenge) {}
    func performDefaultHandling(for challenge: URLAuthenticationChallenge) {}
    func rejectProtectionSpaceAndContinue(with challenge: URLAuthenticationChallenge) {}
}

extension ImageDownloader {
    /// The authentication method of the server-trust challenges a responder receives: the value of Darwin's
    /// `NSURLAuthenticationMethodServerTrust`, which swift-corelibs-foundation marks unavailable.
    public static let serverTrustAuthenticationMethod = "NSURLAuthenticationMethodServerTrust"

    /// What the TLS check of a request to `url` is to be.
    enum ServerTrust {
        case verify
        case trust
        case cancel
    }

    /// Asks the responder about `url`'s host; plain HTTP needs no answer.
    func serverTrust(for url: URL) async -> ServerTrust {
        guard url.scheme?.lowercased() == "https", let host = url.host else { return .verify }
        guard let responder = authenticationChallengeResponder else { return .verify }
        if responder === self {
            // The default answer, without making a challenge.
            return trustedHosts?.contains(host) == true ? .trust : .verify
        }
        let space = URLProtectionSpace(
            host: host, port: url.port ?? 443, protocol: "https", realm: nil,
            authenticationMethod: Self.serverTrustAuthenticationMethod)
        let challenge = URLAuthenticationChallenge(
            protectionSpace: space, proposedCredential: nil, previousFailureCount: 0, failureResponse: nil,
            error: nil, sender: ServerTrustChallengeSender())
        switch await responder.downloader(self, didReceive: challenge).0 {
        case .useCredential: return .trust
        case .cancelAuthenticationChallenge: return .cancel
        default: return .verify
        }
    }
}
