public import Foundation

/// Where and as whom `s3://bucket/key` URLs are fetched: an S3-compatible endpoint (AWS S3, MinIO, Ceph, R2...),
/// its region, the credentials that sign each request, and how a bucket is addressed.
///
/// An `s3://` URL is a ``Resource`` like any other: the downloader fetches the object over HTTP(S) with a signed
/// `GET`, so everything an HTTP download does applies (coalescing, ranged resuming, `ETag`/`Last-Modified`
/// revalidation, retries, limits, the connection address policy). Its cache key is the `s3://` URL, whatever the
/// endpoint.
///
/// ```swift
/// let url = URL(string: "s3://photos/2026/beach.jpg")!
/// let result = try await KingfisherManager.shared.retrieveImage(with: url)  // the standard AWS settings
/// ```
/// ``ImageDownloader/Configuration/objectStorage`` sets one explicitly; without it the downloader reads the
/// standard AWS settings (``fromEnvironment(_:profile:)``) when it first meets an `s3://` URL.
public struct S3Configuration: Sendable, Equatable {
    /// How a bucket appears in an object's URL.
    public enum Addressing: Sendable, Equatable {
        /// Virtual-hosted on AWS's own endpoints when the bucket name can be a host name without dots (TLS
        /// certificates cover one label), path-style otherwise and on every custom endpoint (what MinIO, Ceph and
        /// most self-hosted stores expect).
        case automatic
        /// `https://endpoint/bucket/key`.
        case path
        /// `https://bucket.endpoint/key`.
        case virtualHosted
    }

    /// The service's base URL, as `AWS_ENDPOINT_URL` gives it (`http://127.0.0.1:9000`); `nil` for AWS's regional
    /// endpoint, `https://s3.<region>.amazonaws.com`.
    public var endpoint: URL?
    /// The region requests are signed for. `us-east-1` by default (what S3-compatible stores accept when they
    /// have no regions).
    public var region: String
    /// What signs each request; `nil` sends them unsigned (public buckets).
    public var credentials: AWSCredentials?
    /// `.automatic` by default.
    public var addressing: Addressing

    public init(
        endpoint: URL? = nil, region: String = "us-east-1", credentials: AWSCredentials? = nil,
        addressing: Addressing = .automatic
    ) {
        self.endpoint = endpoint
        self.region = region
        self.credentials = credentials
        self.addressing = addressing
    }

    /// The HTTP(S) URL of an object.
    public func objectURL(bucket: String, key: String) -> URL {
        let base = endpoint ?? URL(string: "https://s3.\(region).amazonaws.com")!
        var components = URLComponents(url: base, resolvingAgainstBaseURL: false) ?? URLComponents()
        let basePath =
            components.percentEncodedPath.hasSuffix("/")
            ? String(components.percentEncodedPath.dropLast()) : components.percentEncodedPath
        let encodedKey = AWSSignatureV4.uriEncoded(key, keepingSlashes: true)
        if usesVirtualHost(for: bucket) {
            components.host = "\(bucket).\(components.host ?? "")"
            components.percentEncodedPath = "\(basePath)/\(encodedKey)"
        } else {
            components.percentEncodedPath =
                "\(basePath)/\(AWSSignatureV4.uriEncoded(bucket, keepingSlashes: false))/\(encodedKey)"
        }
        components.percentEncodedQuery = nil
        return components.url ?? base
    }

    /// The URL of an `s3://` location.
    public func objectURL(for location: S3Location) -> URL {
        objectURL(bucket: location.bucket, key: location.key)
    }

    private func usesVirtualHost(for bucket: String) -> Bool {
        switch addressing {
        case .path: return false
        case .virtualHosted: return true
        case .automatic:
            guard endpoint == nil else { return false }
            return S3Location.isHostLabel(bucket)
        }
    }

    /// The headers a request of `method` to `url` sends beside its own `headers` (which are signed too): the
    /// payload's SHA-256 (`x-amz-content-sha256`, which S3 wants with every signed request) and, with credentials,
    /// the signature's (`x-amz-date`, `x-amz-security-token`, `authorization`). `host` is left out: the HTTP client
    /// sends the one it connects to, which is the one signed.
    func signedHeaders(
        method: String, url: URL, headers: [AWSSignatureV4.Header] = [],
        payloadHash: String = AWSSignatureV4.emptyPayloadHash, at date: Date = Date()
    ) -> [AWSSignatureV4.Header] {
        var all = headers + [.init("x-amz-content-sha256", payloadHash)]
        if let credentials {
            let signer = AWSSignatureV4(credentials: credentials, region: region, service: "s3")
            all = signer.signed(method: method, url: url, headers: all, payloadHash: payloadHash, at: date)
        }
        return all.filter { $0.name.lowercased() != "host" }
    }
}
