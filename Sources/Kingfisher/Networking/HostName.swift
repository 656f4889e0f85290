/// Host names as URLs write them.
package enum HostName {
    /// `host` without the brackets an IPv6 literal has in a URL (`[::1]` → `::1`).
    package static func bare(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }
}
