import Foundation
import Kingfisher
import KingfisherLocking

#if canImport(Glibc)
    import Glibc
#endif

/// One resolved address of a host: its bytes (4 or 16) and its class.
struct ResolvedAddress: Sendable, Hashable, CustomStringConvertible {
    let bytes: [UInt8]

    var addressClass: AddressClass {
        bytes.count == 4 ? AddressClass(ipv4: bytes) : AddressClass(ipv6: bytes)
    }

    var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        _ = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Resolves host names with the system resolver (getaddrinfo, as the HTTP client does), off the caller's thread.
enum HostResolver {
    /// Every address `host` resolves to; empty when it resolves to none, or not within `timeout` seconds (the
    /// lookup itself cannot be stopped: it finishes on its thread, and its answer is dropped). An IP literal
    /// resolves to itself.
    static func addresses(of host: String, timeout: TimeInterval) async -> [ResolvedAddress] {
        let name = HostName.bare(host)
        let answered = Locked(false)
        return await withSanitizedCheckedContinuation { (continuation: CheckedContinuation<[ResolvedAddress], Never>) in
            @Sendable func answer(_ addresses: [ResolvedAddress]) {
                let first = answered.withLock { done in
                    defer { done = true }
                    return !done
                }
                if first { continuation.resume(returning: addresses) }
            }
            DispatchQueue.global().async { answer(resolve(name)) }
            DispatchQueue.global().asyncAfter(deadline: .now() + max(0.001, min(timeout, 3600))) { answer([]) }
        }
    }

    private static func resolve(_ host: String) -> [ResolvedAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var found: [ResolvedAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if let address = current.pointee.ai_addr {
                switch Int32(address.pointee.sa_family) {
                case AF_INET:
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                        var raw = v4.pointee.sin_addr
                        found.append(ResolvedAddress(bytes: withUnsafeBytes(of: &raw) { Array($0) }))
                    }
                case AF_INET6:
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                        var raw = v6.pointee.sin6_addr
                        found.append(ResolvedAddress(bytes: withUnsafeBytes(of: &raw) { Array($0) }))
                    }
                default: break
                }
            }
            entry = current.pointee.ai_next
        }
        return Array(Set(found))
    }
}
