public import Foundation

/// An object in a bucket, as an `s3://bucket/key` URL names it.
public struct S3Location: Sendable, Hashable, CustomStringConvertible {
    public let bucket: String
    /// The object's key, decoded (`s3://b/a%20b.jpg` is the key `a b.jpg`).
    public let key: String

    /// `nil` when the bucket or the key is empty, or the bucket is not a name S3 allows (3 to 63 letters, digits,
    /// dots, hyphens and underscores; no slashes).
    public init?(bucket: String, key: String) {
        guard (3...63).contains(bucket.count), !key.isEmpty,
            bucket.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._".contains($0)) })
        else { return nil }
        self.bucket = bucket
        self.key = key
    }

    /// The location an `s3://bucket/key` URL names; `nil` for any other URL, or one with no bucket or no key.
    public init?(url: URL) {
        guard url.scheme?.lowercased() == "s3", let bucket = url.host(percentEncoded: false) else { return nil }
        var key = url.path(percentEncoded: false)
        if key.hasPrefix("/") { key.removeFirst() }
        self.init(bucket: bucket, key: key)
    }

    /// `s3://bucket/key`, the key percent-encoded where a URL needs it.
    public var url: URL {
        URL(string: "s3://\(bucket)/\(AWSSignatureV4.uriEncoded(key, keepingSlashes: true))")!
    }

    public var description: String { "s3://\(bucket)/\(key)" }

    /// Whether `name` can be one label of a host name: lowercase letters, digits and inner hyphens.
    static func isHostLabel(_ name: String) -> Bool {
        guard let first = name.first, let last = name.last, first != "-", last != "-" else { return false }
        return name.allSatisfy { ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "-" }
    }
}
