import Foundation

/// What the cache keeps about the response an entry came from: its validators and what the origin said about
/// its freshness, with the times needed to age it (RFC 9111 §4.2). One record per source URL, shared by the
/// original and every processed variant made from that response.
struct HTTPCacheRecord: Sendable, Hashable, Codable {
    /// The strong or weak entity tag, exactly as sent (quotes and `W/` included); `nil` when absent or given
    /// more than once (an `ETag` field is a single value).
    var entityTag: String?
    /// `Last-Modified`, as sent, when it is a valid HTTP date.
    var lastModified: String?
    var cacheControl: CacheControl
    /// `Date`, when valid.
    var date: Date?
    /// `Age` in seconds, when valid.
    var age: Int?
    /// `Expires`: absent, a valid date, or present but invalid (which means already expired).
    var expires: Expires
    /// When the request was sent and the response received, by this machine's clock.
    var requestTime: Date
    var responseTime: Date
    /// Identifies the bytes of the response (their length and CRC-32C): entries made from other bytes are not
    /// this record's.
    var contentTag: String
    /// The processor identifiers of the entries stored from this response (`""` for the original), so that a
    /// changed response can remove them all.
    var variants: Set<String> = []

    enum Expires: Sendable, Hashable, Codable {
        case absent
        case date(Date)
        case invalid
    }

    /// The record of a response, from its header fields (names in any case), or `nil` when the response says
    /// `no-store`.
    init?(
        headers: [String: String], requestTime: Date, responseTime: Date, contentTag: String
    ) {
        let fields = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { $0 + ", " + $1 })
        cacheControl = CacheControl(fields["cache-control"])
        if cacheControl.noStore { return nil }
        if let tag = fields["etag"]?.trimmingCharacters(in: .whitespaces), Self.isSingleEntityTag(tag) {
            entityTag = tag
        }
        if let modified = fields["last-modified"], HTTPDate.parse(modified) != nil {
            lastModified = modified.trimmingCharacters(in: .whitespaces)
        }
        date = fields["date"].flatMap(HTTPDate.parse)
        age = fields["age"].flatMap { text in
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, trimmed.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int(trimmed) ?? Int(Int32.max)
        }
        switch fields["expires"] {
        case nil: expires = .absent
        case let text?: expires = HTTPDate.parse(text).map(Expires.date) ?? .invalid
        }
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.contentTag = contentTag
    }

    /// Whether a conditional request can be made: there is an entity tag or a modification date.
    var hasValidator: Bool { entityTag != nil || lastModified != nil }

    /// The header fields of a conditional request for this entry (RFC 9110 §13.1): `If-None-Match` with the
    /// entity tag, else `If-Modified-Since` with the modification date. Never both: a server must ignore the date
    /// beside a tag (§13.1.3), but some judge each on its own (moto's S3 among them) and answer `304` from the
    /// date for an object replaced within the second its old one was written; the tag says it changed.
    var conditionalHeaders: [String: String] {
        if let entityTag { return ["If-None-Match": entityTag] }
        if let lastModified { return ["If-Modified-Since": lastModified] }
        return [:]
    }

    /// How long the response is fresh for (RFC 9111 §4.2.1): `max-age`, else `Expires` minus `Date`, else, for a
    /// response with a modification date, a tenth of its age when sent, at most `heuristicLimit`. Zero when it
    /// says nothing, or something invalid.
    func freshnessLifetime(heuristicLimit: TimeInterval) -> TimeInterval {
        switch cacheControl.maxAge {
        case .seconds(let seconds): return TimeInterval(seconds)
        case .invalid: return 0
        case .absent: break
        }
        switch expires {
        case .date(let expiry): return max(0, expiry.timeIntervalSince(date ?? responseTime))
        case .invalid: return 0
        case .absent: break
        }
        guard let lastModified, let modified = HTTPDate.parse(lastModified) else { return 0 }
        let sinceModified = (date ?? responseTime).timeIntervalSince(modified)
        return min(max(0, sinceModified / 10), max(0, heuristicLimit))
    }

    /// The response's age at `now` (RFC 9111 §4.2.3): the age it had when it arrived (by `Date`, or by `Age`
    /// plus the time the request took, whichever is larger) plus the time it has spent here.
    func currentAge(at now: Date) -> TimeInterval {
        let apparentAge = max(0, responseTime.timeIntervalSince(date ?? responseTime))
        let responseDelay = max(0, responseTime.timeIntervalSince(requestTime))
        let correctedAge = TimeInterval(age ?? 0) + responseDelay
        let initialAge = max(apparentAge, correctedAge)
        return initialAge + max(0, now.timeIntervalSince(responseTime))
    }

    /// What the record allows at `now`.
    func state(at now: Date, heuristicLimit: TimeInterval) -> FreshnessState {
        let lifetime = freshnessLifetime(heuristicLimit: heuristicLimit)
        let age = currentAge(at: now)
        if age < lifetime && !cacheControl.noCache {
            return .fresh
        }
        let staleFor = age - lifetime
        var state = FreshnessState.stale(whileRevalidating: false, ifError: false)
        guard !cacheControl.mustRevalidate, !cacheControl.noCache else { return state }
        if let window = cacheControl.staleWhileRevalidate, staleFor < TimeInterval(window) {
            state = .stale(whileRevalidating: true, ifError: false)
        }
        if let window = cacheControl.staleIfError, staleFor < TimeInterval(window),
            case .stale(let whileRevalidating, _) = state
        {
            state = .stale(whileRevalidating: whileRevalidating, ifError: true)
        }
        return state
    }

    /// What the record allows for the entry made by the processor `variant` (`""` for the original) at `now`;
    /// `nil` when the record does not list it (the entry was not made from this response).
    func state(ofVariant variant: String, at now: Date, policy: HTTPCachePolicy) -> FreshnessState? {
        guard variants.contains(variant) else { return nil }
        return state(at: now, heuristicLimit: policy.heuristicFreshnessLimit)
    }

    /// The record after a `304` with `headers` (RFC 9111 §4.3.4): the fields the 304 sent replace the stored
    /// ones, the rest stay, and the times are the 304's. `nil` when the 304 says `no-store`.
    func refreshed(by headers: [String: String], requestTime: Date, responseTime: Date) -> HTTPCacheRecord? {
        refreshed(by: RevalidationUpdate(headers: headers, requestTime: requestTime, responseTime: responseTime))
    }

    /// The record after a `304` whose fields were parsed already (outside any lock).
    func refreshed(by update: RevalidationUpdate) -> HTTPCacheRecord? {
        guard let fields = update.fields else { return nil }
        var record = self
        if update.sent.contains("cache-control") { record.cacheControl = fields.cacheControl }
        if update.sent.contains("etag") { record.entityTag = fields.entityTag }
        if update.sent.contains("last-modified") { record.lastModified = fields.lastModified }
        if update.sent.contains("expires") { record.expires = fields.expires }
        record.date = fields.date
        record.age = fields.age
        record.requestTime = fields.requestTime
        record.responseTime = fields.responseTime
        return record
    }

    /// Whether the record is stale whatever its times say, with no window in which a stale entry may be used:
    /// `no-cache`, or a `max-age` of zero (or an invalid one), without `stale-while-revalidate` or
    /// `stale-if-error`. Every use of its entries is a conditional request.
    var isAlwaysStale: Bool {
        guard cacheControl.staleWhileRevalidate == nil, cacheControl.staleIfError == nil else { return false }
        if cacheControl.noCache { return true }
        switch cacheControl.maxAge {
        case .seconds(let seconds): return seconds <= 0
        case .invalid: return true
        case .absent: return false
        }
    }

    /// Whether `other` is this record with other times (`Date`, `Age`, when requested and received) only.
    func differsOnlyInTimes(from other: HTTPCacheRecord) -> Bool {
        var retimed = other
        retimed.date = date
        retimed.age = age
        retimed.requestTime = requestTime
        retimed.responseTime = responseTime
        return retimed == self
    }

    /// Whether `text` is one entity tag (`"x"` or `W/"x"`), not a list or garbage.
    static func isSingleEntityTag(_ text: String) -> Bool {
        var body = Substring(text)
        if body.hasPrefix("W/") { body = body.dropFirst(2) }
        guard body.count >= 2, body.first == "\"", body.last == "\"" else { return false }
        return !body.dropFirst().dropLast().contains("\"")
    }
}

/// Whether a cached entry may be used as it is.
enum FreshnessState: Sendable, Hashable {
    /// Within its freshness lifetime: use it, ask nobody.
    case fresh
    /// Past it: revalidate first. `whileRevalidating` when it may be used at once while a background request
    /// revalidates it; `ifError` when it may be used if the origin cannot be reached or fails with a 5xx.
    case stale(whileRevalidating: Bool, ifError: Bool)
}

/// What a `304` says, parsed once: the fields it sent (lower-cased names) and their values as a record would hold
/// them; `fields` is `nil` when it says `no-store`.
struct RevalidationUpdate: Sendable {
    let sent: Set<String>
    let fields: HTTPCacheRecord?

    init(headers: [String: String], requestTime: Date, responseTime: Date) {
        sent = Set(headers.keys.map { $0.lowercased() })
        fields = HTTPCacheRecord(
            headers: headers, requestTime: requestTime, responseTime: responseTime, contentTag: "")
    }
}
