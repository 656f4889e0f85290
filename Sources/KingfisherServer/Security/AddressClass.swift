import Foundation

/// What kind of address an IP address is, for the SSRF guard: only ``public`` addresses are fetched without an
/// allow-list entry.
enum AddressClass: String, Sendable, Hashable {
    case `public`
    case loopback
    /// RFC 1918, carrier-grade NAT (100.64/10), IPv6 unique local (fc00::/7), and ranges set aside for
    /// benchmarks and documentation.
    case `private`
    case linkLocal = "link-local"
    case multicast
    /// 0.0.0.0/8, ::, and other addresses no host has (reserved, broadcast, IPv4-compatible IPv6).
    case unspecified

    /// The class of a 4-byte IPv4 address.
    init(ipv4 b: [UInt8]) {
        precondition(b.count == 4)
        switch (b[0], b[1]) {
        case (0, _): self = .unspecified
        case (127, _): self = .loopback
        case (10, _), (172, 16...31), (192, 168), (100, 64...127), (198, 18...19): self = .private
        case (192, 0) where b[2] == 0 || b[2] == 2: self = .private  // IETF protocol assignments, TEST-NET-1
        case (198, 51) where b[2] == 100, (203, 0) where b[2] == 113: self = .private  // TEST-NET-2 and -3
        case (169, 254): self = .linkLocal
        case (224...239, _): self = .multicast
        case (240...255, _): self = .unspecified
        default: self = .public
        }
    }

    /// The class of a 16-byte IPv6 address; IPv4 addresses carried inside (mapped, NAT64) are judged as IPv4.
    init(ipv6 b: [UInt8]) {
        precondition(b.count == 16)
        let first10Zero = b[0..<10].allSatisfy { $0 == 0 }
        if first10Zero, b[10] == 0xff, b[11] == 0xff {
            self.init(ipv4: Array(b[12..<16]))  // ::ffff:a.b.c.d
            return
        }
        if b[0] == 0x00, b[1] == 0x64, b[2] == 0xff, b[3] == 0x9b, b[4..<12].allSatisfy({ $0 == 0 }) {
            self.init(ipv4: Array(b[12..<16]))  // 64:ff9b::a.b.c.d (NAT64)
            return
        }
        if b[0..<8].allSatisfy({ $0 == 0 }), b[8] == 0xff, b[9] == 0xff, b[10] == 0, b[11] == 0 {
            self.init(ipv4: Array(b[12..<16]))  // ::ffff:0:a.b.c.d (IPv4-translated)
            return
        }
        if b[0] == 0x20, b[1] == 0x02 {
            self.init(ipv4: Array(b[2..<6]))  // 2002:aabb:ccdd::/48 (6to4)
            return
        }
        if b[0] == 0x00, b[1] == 0x64, b[2] == 0xff, b[3] == 0x9b, b[4] == 0x00, b[5] == 0x01 {
            self = .private  // 64:ff9b:1::/48, local-use NAT64
            return
        }
        if b[0] == 0x20, b[1] == 0x01, b[2] == 0, b[3] == 0 {
            self = .private  // 2001::/32, Teredo: an IPv4 address hides inside, obfuscated
            return
        }
        if b[0..<15].allSatisfy({ $0 == 0 }) {
            self = b[15] == 1 ? .loopback : .unspecified  // ::1, ::
            return
        }
        if first10Zero, b[10] == 0, b[11] == 0 {
            self = .unspecified  // ::a.b.c.d, deprecated IPv4-compatible
            return
        }
        switch b[0] {
        case 0xff: self = .multicast
        case 0xfc, 0xfd: self = .private
        case 0xfe where b[1] & 0xc0 == 0x80: self = .linkLocal
        case 0xfe where b[1] & 0xc0 == 0xc0: self = .private  // fec0::/10, deprecated site-local
        case 0x20 where b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8: self = .private  // 2001:db8::/32, documentation
        default: self = .public
        }
    }
}
