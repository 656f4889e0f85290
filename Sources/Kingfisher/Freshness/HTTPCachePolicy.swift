public import Foundation

/// Whether retrievals follow the HTTP caching headers of the responses their images came from (RFC 9111, as a
/// private cache). Ours: Kingfisher keeps an entry for its fixed expiration whatever the origin says, and that
/// stays the default (``ignoresResponseHeaders``), so ported code behaves as before.
///
/// Following them, a network image's entries (the original and every processed variant) share what the origin
/// said about the response: a fresh entry is used without a request; a stale one is revalidated with a
/// conditional request (`If-None-Match`, `If-Modified-Since`), and a `304` keeps it (no download, decode or
/// processing) while a `200` replaces it and every variant made from the old bytes. `no-store` responses never
/// reach the disk, `no-cache` ones are revalidated every time, and `stale-while-revalidate` / `stale-if-error`
/// let a stale entry be used while revalidating or when the origin fails. ``RetrieveImageResult/validation``
/// says which happened. A large download cut off mid-transfer is resumed by the next try (``resumesDownloads``).
///
/// Ages are measured with the cache's clock (`DiskStorage.Config.now`, the system clock by default).
///
/// ```swift
/// KingfisherManager.shared.httpCachePolicy = .followsResponseHeaders
/// // or per retrieval
/// let result = try await KingfisherManager.shared.retrieveImage(
///     with: url, options: [.httpCachePolicy(.followsResponseHeaders)])
/// ```
public struct HTTPCachePolicy: Sendable, Hashable {
    /// Whether the response headers are followed at all.
    public var followsHeaders: Bool
    /// The longest a response may be considered fresh when it gives no lifetime (`max-age`, `Expires`) but a
    /// `Last-Modified` date: a tenth of its age when sent, at most this. One day by default.
    public var heuristicFreshnessLimit: TimeInterval

    /// Whether a large body cut off mid-transfer is kept in the disk cache's directory and the next try asks
    /// for the rest (`Range` with `If-Range`) instead of all of it. On by default when headers are followed.
    public var resumesDownloads: Bool

    public init(
        followsHeaders: Bool = true, heuristicFreshnessLimit: TimeInterval = 86_400, resumesDownloads: Bool = true
    ) {
        self.followsHeaders = followsHeaders
        self.heuristicFreshnessLimit = heuristicFreshnessLimit
        self.resumesDownloads = resumesDownloads
    }

    /// Whether downloads resume: headers are followed and ``resumesDownloads`` is on.
    var resumes: Bool { followsHeaders && resumesDownloads }

    /// Kingfisher's behaviour: entries live for their cache expiration; response headers are not read.
    public static let ignoresResponseHeaders = HTTPCachePolicy(followsHeaders: false)

    /// RFC 9111 for a private cache, with the default heuristic limit.
    public static let followsResponseHeaders = HTTPCachePolicy()
}

/// How a retrieval that followed the HTTP caching headers got its image (``RetrieveImageResult/validation``).
public enum HTTPValidation: Sendable, Hashable {
    /// From the cache, within its freshness lifetime: no request was made.
    case fresh
    /// From the cache after the origin answered `304 Not Modified` to a conditional request.
    case revalidated
    /// Downloaded: nothing was cached for the source. (Ours: before it, a first download said ``refetched``.)
    case fetched
    /// Downloaded again: the cached entry could not be revalidated (no validator, or not the current response's),
    /// the origin's image changed (a `200` to a conditional request), or `forceRefresh` asked for it.
    case refetched
    /// From the cache although stale, as the response allowed.
    case stale(StaleReason)

    /// Why a stale entry was used.
    public enum StaleReason: Sendable, Hashable {
        /// `stale-while-revalidate`: a conditional request runs in the background.
        case revalidatingInBackground
        /// `stale-if-error`: the origin could not be reached or answered with a `5xx`.
        case originFailed
    }

    /// `fresh`, `revalidated`, `fetched`, `refetched` or `stale`: the name `kf fetch --json` prints.
    public var name: String {
        switch self {
        case .fresh: "fresh"
        case .fetched: "fetched"
        case .revalidated: "revalidated"
        case .refetched: "refetched"
        case .stale: "stale"
        }
    }
}
