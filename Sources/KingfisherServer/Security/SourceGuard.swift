import Foundation
import Kingfisher
import KingfisherLocking

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The SSRF guard: decides whether the server may fetch a URL, before the request and again for every redirect, and
/// tells the downloader which address to connect to.
///
/// With an allow-list, a URL's host (and port, when the entry names one) must be on it, and then its addresses are
/// not checked: an entry is the one way to reach a loopback or private origin. Without one, the host is resolved and
/// every address it resolves to must be public (not loopback, private, link-local, multicast or unspecified), and
/// the download connects to one of those addresses, never to a later answer: a name whose DNS answer changes
/// between the check and the connection (rebinding) cannot lead a request to a private address.
struct SourceGuard: ImageDownloadRedirectHandler, ConnectionAddressPolicy {
    /// Resolves a host name to its addresses within a timeout; the system resolver by default.
    typealias Resolver = @Sendable (_ host: String, _ timeout: TimeInterval) async -> [ResolvedAddress]

    let allowedSources: [ImageServer.AllowedSource]
    /// How long a host name may take to resolve; a slower one is refused as unresolvable.
    var resolutionTimeout: TimeInterval = 10
    private let resolver: Resolver
    private let classify: @Sendable (ResolvedAddress) -> AddressClass
    /// Addresses vetted lately, so that the check before a download and its connection use one answer.
    private let vetted: VettedAddresses

    /// - Parameters:
    ///   - vettedLifetime: how long a vetted answer is reused (seconds); `0` resolves for every use.
    ///   - resolver, classify: the lookup and the address classes; tests replace them to play a DNS server whose
    ///     answer changes and a public origin on loopback.
    init(
        allowedSources: [ImageServer.AllowedSource], resolutionTimeout: TimeInterval = 10,
        vettedLifetime: TimeInterval = 10,
        resolver: @escaping Resolver = { await HostResolver.addresses(of: $0, timeout: $1) },
        classify: @escaping @Sendable (ResolvedAddress) -> AddressClass = { $0.addressClass }
    ) {
        self.allowedSources = allowedSources
        self.resolutionTimeout = resolutionTimeout
        self.resolver = resolver
        self.classify = classify
        vetted = VettedAddresses(lifetime: vettedLifetime)
    }

    /// Throws ``ImageServerError`` when `url` may not be fetched.
    func check(_ url: URL) async throws(ImageServerError) {
        _ = try await vettedAddress(for: url)
    }

    /// The public address to connect to for `url`; `nil` for an allow-listed source, which is reached by its name.
    /// Throws ``ImageServerError`` when `url` may not be fetched.
    func vettedAddress(for url: URL) async throws(ImageServerError) -> ResolvedAddress? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .unsupportedScheme
        }
        guard let host = url.host, !host.isEmpty else { throw .sourceNotAllowed }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        if !allowedSources.isEmpty {
            guard allowedSources.contains(where: { $0.allows(host: HostName.bare(host), port: port) }) else {
                throw .sourceNotAllowed
            }
            return nil
        }
        let name = host.lowercased()
        if let address = vetted.address(of: name) { return address }
        let addresses = await resolver(name, resolutionTimeout)
        guard let first = addresses.first else { throw .unresolvableHost }
        if let refused = addresses.first(where: { classify($0) != .public }) {
            throw .forbiddenAddress(classify(refused))
        }
        vetted.remember(first, for: name)
        return first
    }

    func address(toConnectFor url: URL) async throws -> String? {
        try await vettedAddress(for: url)?.description
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

}

/// Vetted addresses by host name, each reused for a short lifetime (a bounded number of names).
final class VettedAddresses: Sendable {
    private let lifetime: TimeInterval
    private let entries = Locked([String: (address: ResolvedAddress, until: ContinuousClock.Instant)]())
    private static let capacity = 1024

    init(lifetime: TimeInterval) {
        self.lifetime = lifetime
    }

    func address(of host: String) -> ResolvedAddress? {
        let now = ContinuousClock.now
        return entries.withLock { entries in
            guard let entry = entries[host] else { return nil }
            guard entry.until > now else {
                entries[host] = nil
                return nil
            }
            return entry.address
        }
    }

    func remember(_ address: ResolvedAddress, for host: String) {
        guard lifetime > 0 else { return }
        let now = ContinuousClock.now
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries = entries.filter { $0.value.until > now } }
            if entries.count >= Self.capacity { entries.removeAll() }
            entries[host] = (address, now + .milliseconds(Int64(lifetime * 1000)))
        }
    }
}
