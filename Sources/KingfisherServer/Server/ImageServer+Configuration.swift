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
