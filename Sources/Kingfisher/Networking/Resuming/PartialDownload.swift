import AsyncHTTPClient
import Foundation
import NIOHTTP1

/// The first bytes of a body whose transfer was cut off, and what identifies the representation they belong to,
/// so that a later request can ask for the rest: `Range: bytes=N-` with `If-Range` (RFC 9110 §14.2, §13.1.5).
///
/// A body is kept only when the rest can be asked for safely: the response said `Accept-Ranges: bytes`, declared
/// its whole length, had no content coding (ranges count the coded bytes), and carried a strong validator (a strong
/// `ETag`, else a `Last-Modified` at least a second before its `Date`, RFC 9110 §8.8.2.2). The server answers `If-Range` with the rest only while that validator still holds, and with the
/// whole new body otherwise, so two versions are never spliced.
struct PartialDownload: Sendable, Equatable {
    /// What identifies the representation the bytes belong to, and how long it is.
    struct Identity: Sendable, Equatable, Codable {
        /// The `If-Range` value: a strong entity tag (quotes included) or an HTTP date.
        var validator: String
        /// Whether ``validator`` is an entity tag (else a `Last-Modified` date).
        var isEntityTag: Bool
        /// The whole body's length in bytes.
        var totalLength: Int64
    }

    var identity: Identity
    /// The first `bytes.count` bytes of the body.
    var bytes: Data

    /// Bodies shorter than this are downloaded again in full: resuming them saves too little.
    static let minimumTotalLength: Int64 = 1 << 20
    /// Fewer bytes than this received are not worth keeping.
    static let minimumKeptLength = 64 << 10

    /// The header fields that ask for the rest of the body.
    var rangeHeaders: [String: String] {
        ["Range": "bytes=\(bytes.count)-", "If-Range": identity.validator]
    }

    /// What identifies the whole body of `head` (a `200`) if its transfer could be resumed; `nil` when it could
    /// not. (The rest of a kept start, a `206`, keeps the identity of that start: ``isContinued(by:)``.)
    static func identity(of head: HTTPClientResponse) -> Identity? {
        let headers = head.headers
        let coding = headers[canonicalForm: "Content-Encoding"].map { $0.lowercased() }
        let ranges = headers[canonicalForm: "Accept-Ranges"].map { $0.lowercased() }
        guard head.status.code == 200, coding.allSatisfy({ $0 == "identity" }), ranges.contains("bytes"),
            let totalLength = singleLength(headers["Content-Length"]), totalLength >= minimumTotalLength,
            let validator = strongValidator(of: head)
        else { return nil }
        return Identity(validator: validator.value, isEntityTag: validator.isEntityTag, totalLength: totalLength)
    }

    /// Whether `head`, the answer to ``rangeHeaders``, is the rest of these bytes: a `206` whose one range starts
    /// where the bytes end and runs to the end of the same length, with the same validator when it sends one.
    func isContinued(by head: HTTPClientResponse) -> Bool {
        guard head.status.code == 206, let range = ContentRange(head.headers.first(name: "Content-Range")),
            range.start == Int64(bytes.count), range.end == identity.totalLength - 1,
            range.totalLength == identity.totalLength
        else { return false }
        // The server checked `If-Range` already; a validator it sends as well must be the same one.
        let field = identity.isEntityTag ? "ETag" : "Last-Modified"
        let sent = head.headers[field].map { $0.trimmingCharacters(in: .whitespaces) }
        return sent.allSatisfy { $0 == identity.validator }
    }

    /// A strong entity tag, else a `Last-Modified` that is strong (a second or more before the response's `Date`).
    private static func strongValidator(of head: HTTPClientResponse) -> (value: String, isEntityTag: Bool)? {
        let tags = head.headers["ETag"]
        if tags.count == 1, let tag = tags.first?.trimmingCharacters(in: .whitespaces), !tag.hasPrefix("W/"),
            HTTPCacheRecord.isSingleEntityTag(tag)
        {
            return (tag, true)
        }
        guard let modifiedText = head.headers.first(name: "Last-Modified"),
            let modified = HTTPDate.parse(modifiedText),
            let date = head.headers.first(name: "Date").flatMap(HTTPDate.parse),
            date.timeIntervalSince(modified) >= 1
        else { return nil }
        return (modifiedText.trimmingCharacters(in: .whitespaces), false)
    }

    /// One non-negative length, when `values` holds exactly one (repeated equal values count as one).
    private static func singleLength(_ values: [String]) -> Int64? {
        let lengths = Set(values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) })
        guard lengths.count == 1, let text = lengths.first, text.allSatisfy(\.isASCII),
            let length = Int64(text), length >= 0
        else { return nil }
        return length
    }
}

/// A `Content-Range` of one byte range with a known length: `bytes START-END/LENGTH` (RFC 9110 §14.4).
struct ContentRange: Equatable {
    var start: Int64
    var end: Int64
    var totalLength: Int64

    init?(_ text: String?) {
        guard let text else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let halves = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let start = Self.number(bounds[0]), let end = Self.number(bounds[1]),
            let total = Self.number(halves[1]), start <= end, end < total
        else { return nil }
        self.start = start
        self.end = end
        self.totalLength = total
    }

    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return Int64(text)
    }
}
