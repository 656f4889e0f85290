public import Foundation
public import Kingfisher

extension ImageServer {
    /// A source host the server may fetch from: `host` on any port, or on `port` only.
    public struct AllowedSource: Sendable, Hashable, CustomStringConvertible {
        public var host: String
        public var port: Int?

        public init(host: String, port: Int? = nil) {
            self.host = host.lowercased()
            self.port = port
        }

        /// Parses `HOST` or `HOST:PORT` (`[v6]:PORT` for IPv6); `nil` when it is neither.
        public init?(_ text: String) {
            var host = Substring(text)
            var port: Int?
            if host.hasPrefix("[") {
                guard let close = host.firstIndex(of: "]") else { return nil }
                let after = host[host.index(after: close)...]
                host = host[host.index(after: host.startIndex)..<close]
                if !after.isEmpty {
                    guard after.hasPrefix(":"), let value = Int(after.dropFirst()) else { return nil }
                    port = value
                }
            } else if let colon = host.lastIndex(of: ":") {
                guard let value = Int(host[host.index(after: colon)...]) else { return nil }
                port = value
                host = host[..<colon]
            }
            guard !host.isEmpty, !host.contains("/"), port.map({ (1...65535).contains($0) }) ?? true else { return nil }
            self.init(host: String(host), port: port)
        }

        public func allows(host other: String, port otherPort: Int) -> Bool {
            host == other.lowercased() && (port == nil || port == otherPort)
        }

        public var description: String {
            let shown = host.contains(":") ? "[\(host)]" : host
            return port.map { "\(shown):\($0)" } ?? shown
        }
    }

    /// Images named by a path read from S3-compatible object storage, as thumbor's S3 loader reads them: with one
    /// bucket, the path is the key in it; with several, the path's first part names the bucket (one of them) and
    /// the rest is the key. `keyPrefix` goes before every key (thumbor's `TC_AWS_LOADER_ROOT_PATH`).
    public struct S3Loader: Sendable, Equatable {
        public var buckets: [String]
        public var keyPrefix: String

        public init(buckets: [String], keyPrefix: String = "") {
            self.buckets = buckets
            self.keyPrefix = keyPrefix
        }
    }

    /// Where made results are kept for every instance to serve: `s3://bucket/prefix`, each result under the name
    /// the disk cache gives it. The local cache stays in front of it.
    public struct ResultStore: Sendable, Equatable {
        public var bucket: String
        public var prefix: String

        public init(bucket: String, prefix: String = "") {
            self.bucket = bucket
            self.prefix = prefix
        }

        /// Reads `s3://bucket[/prefix]`; `nil` for anything else.
        public init?(_ text: String) {
            guard text.lowercased().hasPrefix("s3://") else { return nil }
            let parts = text.dropFirst(5).split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let bucket = parts.first, S3Location(bucket: String(bucket), key: "k") != nil else { return nil }
            let prefix = parts.count > 1 ? String(parts[1]) : ""
            self.init(bucket: String(bucket), prefix: prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix)
        }
    }

    /// How the server runs: who may ask, what it fetches, what it answers with, and its limits.
    public struct Configuration: Sendable {
        /// The key thumbor URLs are signed with. Without one, only `unsafe/` URLs can work (and need
        /// ``allowsUnsafeURLs``).
        public var securityKey: String?
        /// Whether `/unsafe/...` URLs are served. Off by default: URLs must be signed.
        public var allowsUnsafeURLs = false
        /// When not empty, the only hosts images are fetched from, each also exempt from the private-address
        /// check (the one way to reach a loopback or private origin).
        public var allowedSources: [AllowedSource] = []
        /// Where images named by a path (not a URL) are read from; `nil` fetches them over `http://`, as thumbor.
        public var rootDirectory: URL?
        /// With a ``rootDirectory``, whether a path that names no file there is fetched over `http://` instead
        /// (thumbor's `file_loader_http_fallback`, so `127.0.0.1:8080/a.jpg` still reaches that origin); `false`
        /// answers it `404` (thumbor's `file_loader`). `true` by default.
        public var rootFallsBackToHTTP = true
        /// Read images named by a path from S3-compatible storage instead (not with a ``rootDirectory``). `nil`
        /// by default.
        public var s3Loader: S3Loader?
        /// Keep made results in S3-compatible storage as well, where every instance finds them. `nil` by default.
        public var resultStore: ResultStore?
        /// The endpoint, region and credentials of the S3 loader, the result store and `s3://` sources; `nil` (the
        /// default) reads the standard AWS settings (`AWS_*` variables, `~/.aws` profiles).
        public var objectStorage: S3Configuration?
        /// Answer WebP to clients that accept it when the URL asks for no format (`Vary: Accept` then).
        public var autoWebP = false
        /// Answer AVIF to clients that accept it when the URL asks for no format; preferred over WebP.
        public var autoAVIF = false
        /// `Cache-Control: public, max-age=N` on results. A day by default; 0 sends `no-cache`.
        public var maxAge = 86_400
        /// Quality of lossy results when the URL gives none (thumbor's default).
        public var defaultQuality = 80
        /// Results being made at once; more wait in the queue. Twice the cores by default.
        public var maximumActiveRequests = ProcessInfo.processInfo.activeProcessorCount * 2
        /// Results waiting for a turn; a request beyond them is answered `503` with `Retry-After`.
        public var maximumQueuedRequests = 256
        /// What `Retry-After` says, in seconds.
        public var retryAfter = 1
        /// The longest an origin may take to answer and send its image; past it the request is a `504`.
        public var originTimeout: TimeInterval = 10
        /// The largest source accepted, in bytes (`413` past it).
        public var maximumSourceBytes = 50 * 1024 * 1024
        /// The most pixels a result (or a `fill` canvas) may have; a larger one is a `400` before its pixels are
        /// computed. 50 megapixels by default.
        public var maximumResultPixels = 50_000_000
        /// The most pixels of an animation (every frame counted) decoded for a result: about four bytes each are
        /// held at once, the source's frames all decoded before they are processed. A GIF or animated WebP over
        /// it is read from its header and gets its first frame only (a still result, as thumbor without gifsicle
        /// gives). 25 megapixels (about 100 MB) by default.
        public var maximumAnimationPixels = 25_000_000
        /// Decode limits and concurrency (source pixels: `400` past them, before any decoding).
        public var engine = ImageEngine.Configuration()
        /// Bytes of encoded results kept in memory for repeated requests (the disk cache keeps the rest).
        public var resultMemoryBytes = 64 * 1024 * 1024

        public init(securityKey: String? = nil, allowsUnsafeURLs: Bool = false) {
            self.securityKey = securityKey
            self.allowsUnsafeURLs = allowsUnsafeURLs
        }
    }
}
