import Foundation
import Kingfisher

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The SSRF guard: decides whether the server may fetch a URL, before the request and again for every redirect.
///
/// With an allow-list, a URL's host (and port, when the entry names one) must be on it, and then its addresses are
/// not checked: an entry is the one way to reach a loopback or private origin. Without one, the host is resolved and
/// every address it resolves to must be public (not loopback, private, link-local, multicast or unspecified).
///
/// - Note: the HTTP client resolves the host again when it connects; a DNS server that answers differently within
///   that moment (rebinding) is not caught here. Put the server behind an egress firewall where that matters.
struct SourceGuard: ImageDownloadRedirectHandler {
    let allowedSources: [ImageServer.AllowedSource]
    /// How long a host name may take to resolve; a slower one is refused as unresolvable.
    var resolutionTimeout: TimeInterval = 10

    /// Throws ``ImageServerError`` when `url` may not be fetched.
    func check(_ url: URL) async throws(ImageServerError) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .unsupportedScheme
        }
        guard let host = url.host, !host.isEmpty else { throw .sourceNotAllowed }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        if !allowedSources.isEmpty {
            guard allowedSources.contains(where: { $0.allows(host: Self.bare(host), port: port) }) else {
                throw .sourceNotAllowed
            }
            return
        }
        let addresses = await HostResolver.addresses(of: host, timeout: resolutionTimeout)
        guard !addresses.isEmpty else { throw .unresolvableHost }
        if let refused = addresses.first(where: { $0.addressClass != .public }) {
            throw .forbiddenAddress(refused.addressClass)
        }
    }

    func handleHTTPRedirection(
        for task: SessionDataTask, response: HTTPURLResponse, newRequest: URLRequest
    ) async -> URLRequest? {
        guard let url = newRequest.url else { return nil }
        do {
            try await check(url)
            return newRequest
        } catch {
            // The redirect response becomes the final one; the server's downloader refuses 3xx, and the edge
            // answers that the source redirected somewhere it may not go.
            return nil
        }
    }

    /// A host without the brackets of an IPv6 literal.
    private static func bare(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }
}
