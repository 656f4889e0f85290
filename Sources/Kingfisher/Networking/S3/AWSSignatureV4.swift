import Crypto
package import Foundation

/// AWS Signature Version 4 in the `Authorization` header: what an S3-compatible store (AWS S3, MinIO, moto, R2...)
/// checks on every request. The signature covers the method, the path, the query, the headers named as signed and
/// the payload's SHA-256, under a key derived from the secret for one day, region and service.
///
/// Only signing: the credentials come from the caller (the environment, a profile), the request from the S3 source.
package struct AWSSignatureV4: Sendable {
    /// The key that signs: ``AWSCredentials``.
    package typealias Credentials = AWSCredentials

    /// A header as it is signed and sent.
    package struct Header: Sendable, Equatable {
        package var name: String
        package var value: String

        package init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The SHA-256 of an empty payload, in hex: what a GET or a HEAD signs.
    package static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// The SHA-256 of `payload` in hex: what a request with that body signs and sends as `x-amz-content-sha256`.
    package static func payloadHash(of payload: Data) -> String { hex(SHA256.hash(data: payload)) }

    package let credentials: Credentials
    package let region: String
    package let service: String

    package init(credentials: Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The headers to send with a request of `method` to `url` that already has `headers`: those, `host` (from the
    /// URL, when they do not name it), `x-amz-date`, `x-amz-security-token` for temporary credentials, and
    /// `authorization`. Every header of the result is signed. `payloadHash` is the body's SHA-256 in hex (S3 also
    /// wants it sent, as `x-amz-content-sha256`, which the caller adds to `headers`).
    package func signed(
        method: String, url: URL, headers: [Header], payloadHash: String = emptyPayloadHash, at date: Date
    ) -> [Header] {
        let (timestamp, day) = Self.timestamps(of: date)
        var all = headers
        if !all.contains(where: { $0.name.lowercased() == "host" }), let host = Self.host(of: url) {
            all.append(Header("host", host))
        }
        all.append(Header("x-amz-date", timestamp))
        if let token = credentials.sessionToken { all.append(Header("x-amz-security-token", token)) }

        let canonical = canonicalHeaders(all)
        let canonicalRequest = [
            method.uppercased(), canonicalPath(of: url), Self.canonicalQuery(of: url), canonical.lines,
            canonical.names, payloadHash,
        ].joined(separator: "\n")
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = [
            "AWS4-HMAC-SHA256", timestamp, scope, Self.hex(SHA256.hash(data: Data(canonicalRequest.utf8))),
        ].joined(separator: "\n")
        let signature = Self.hex(Self.hmac(signingKey(day: day), stringToSign))
        all.append(
            Header(
                "authorization",
                "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(canonical.names), "
                    + "Signature=\(signature)"))
        return all
    }

    // MARK: - The canonical request

    /// The path, each segment URI-encoded: once for S3, twice for the other services (as AWS's test suite signs).
    private func canonicalPath(of url: URL) -> String {
        let path = url.path(percentEncoded: false)
        guard !path.isEmpty else { return "/" }
        var encoded = Self.uriEncoded(path, keepingSlashes: true)
        if service != "s3" { encoded = Self.uriEncoded(encoded, keepingSlashes: true) }
        return encoded
    }

    /// The query's parameters, names and values URI-encoded, sorted by name then value; a parameter without a
    /// value signs as `name=`.
    private static func canonicalQuery(of url: URL) -> String {
        guard let query = url.query(percentEncoded: true), !query.isEmpty else { return "" }
        let pairs = query.split(separator: "&", omittingEmptySubsequences: true).map { item -> (String, String) in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            let value = parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : ""
            return (uriEncoded(name, keepingSlashes: false), uriEncoded(value, keepingSlashes: false))
        }
        return pairs.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }.map { "\($0.0)=\($0.1)" }
            .joined(separator: "&")
    }

    /// Header names lowercased and sorted, values trimmed with inner runs of spaces made one, values of a name
    /// given twice joined by commas: the lines (each ending in a newline) and the names joined by `;`.
    private func canonicalHeaders(_ headers: [Header]) -> (lines: String, names: String) {
        var values: [String: [String]] = [:]
        for header in headers {
            let value = header.value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
            values[header.name.lowercased(), default: []].append(value)
        }
        let names = values.keys.sorted()
        let lines = names.map { "\($0):\(values[$0, default: []].joined(separator: ","))\n" }.joined()
        return (lines, names.joined(separator: ";"))
    }

    // MARK: - Keys, dates, encodings

    /// The key of one day, region and service, derived from the secret by HMAC-SHA256 in four steps.
    private func signingKey(day: String) -> Data {
        let dated = Self.hmac(Data("AWS4\(credentials.secretAccessKey)".utf8), day)
        return Self.hmac(Self.hmac(Self.hmac(dated, region), service), "aws4_request")
    }

    private static func hmac(_ key: Data, _ message: String) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: Data(message.utf8), using: SymmetricKey(data: key)))
    }

    private static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static func hex(_ digest: SHA256.Digest) -> String { hex(Array(digest)) }

    /// `x-amz-date` (`20150830T123600Z`) and the day of the credential scope (`20150830`), in UTC.
    static func timestamps(of date: Date) -> (timestamp: String, day: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        let day = "\(parts.year ?? 1970)\(two(parts.month))\(two(parts.day))"
        return ("\(day)T\(two(parts.hour))\(two(parts.minute))\(two(parts.second))Z", day)
    }

    /// The host header of `url`: its host, and its port when that is not the scheme's default.
    private static func host(of url: URL) -> String? {
        guard let host = url.host(percentEncoded: false) else { return nil }
        guard let port = url.port else { return host }
        let defaultPort = url.scheme?.lowercased() == "https" ? 443 : 80
        return port == defaultPort ? host : "\(host):\(port)"
    }

    /// `text` with every byte but the unreserved ones (`A-Z a-z 0-9 - _ . ~`, and `/` when kept) as `%XX`.
    static func uriEncoded(_ text: String, keepingSlashes: Bool) -> String {
        var encoded = [UInt8]()
        let digits = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                UInt8(ascii: "~"):
                encoded.append(byte)
            case UInt8(ascii: "/") where keepingSlashes:
                encoded.append(byte)
            default:
                encoded += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }
}
