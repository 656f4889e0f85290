package import Foundation

/// Chooses the address each hop of a download connects to, for a caller that must know where its requests go: an
/// image server's SSRF guard vets a host's addresses and has the download connect to the one it vetted, so a second
/// DNS answer (rebinding) cannot send the request elsewhere.
package protocol ConnectionAddressPolicy: Sendable {
    /// The IP address to connect to for `url` (its host name still goes in `Host` and in TLS's server name), or
    /// `nil` to let the HTTP client resolve the host itself. Throws to refuse the hop; the download fails with
    /// ``KingfisherError/ResponseErrorReason/URLSessionError(error:)`` carrying the error thrown.
    func address(toConnectFor url: URL) async throws -> String?
}
