public import Foundation

extension ImageCache {
    /// How the HTTP cache records in a cache's directory stand (one record per network source stored while
    /// following HTTP caching, see ``HTTPCachePolicy``). Ours.
    public struct HTTPRecordSummary: Sendable, Hashable {
        /// Records within their freshness lifetime: their entries are used without a request.
        public var fresh = 0
        /// Stale records with a validator: their entries are revalidated with a conditional request.
        public var stale = 0
        /// Stale records without a validator (no `ETag`, no `Last-Modified`): their entries are downloaded again.
        public var withoutValidators = 0
        /// Downloads cut off mid-transfer whose start is kept to be resumed (see
        /// ``HTTPCachePolicy/resumesDownloads``), and the bytes kept.
        public var interruptedDownloads = 0
        public var interruptedDownloadBytes: Int64 = 0

        public init() {}
    }

    /// Counts the HTTP cache records on disk, aged with the disk storage's clock. Unreadable records are left out.
    public func httpRecordSummary(policy: HTTPCachePolicy = .followsResponseHeaders) -> HTTPRecordSummary {
        var summary = HTTPRecordSummary()
        let directory = diskStorage.directoryURL
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let now = diskStorage.config.now()
        let workers = JSONDecoder()
        for name in names where name.hasSuffix("." + HTTPRecordStore.fileExtension) {
            guard let data = try? Data(contentsOf: directory.appendingPathComponent(name)),
                let record = try? workers.decode(HTTPCacheRecord.self, from: data)
            else { continue }
            if record.state(at: now, heuristicLimit: policy.heuristicFreshnessLimit) == .fresh {
                summary.fresh += 1
            } else if record.hasValidator {
                summary.stale += 1
            } else {
                summary.withoutValidators += 1
            }
        }
        (summary.interruptedDownloads, summary.interruptedDownloadBytes) = partialDownloads.summary
        return summary
    }

    /// Whether the entry of `key` made by the processor `processorIdentifier` (`""` for the original) is fresh by
    /// its HTTP cache record: it was stored from the response the record describes, and that response is within
    /// its freshness lifetime. `false` without a record. Ours.
    /// Until when the entry of `key` made by the processor `processorIdentifier` (`""` for the original) is fresh
    /// by its HTTP cache record; `nil` when it is not fresh now, or has no record. Ours.
    public func freshByHTTPUntil(
        forKey key: String, processorIdentifier: String = "", policy: HTTPCachePolicy = .followsResponseHeaders
    ) async -> Date? {
        guard let record = await httpRecords.record(forKey: key, in: self) else { return nil }
        let now = diskStorage.config.now()
        guard record.state(ofVariant: processorIdentifier, at: now, policy: policy) == .fresh else { return nil }
        let left = record.freshnessLifetime(heuristicLimit: policy.heuristicFreshnessLimit) - record.currentAge(at: now)
        return now.addingTimeInterval(max(0, left))
    }

    public func isFreshByHTTP(
        forKey key: String, processorIdentifier: String = "", policy: HTTPCachePolicy = .followsResponseHeaders
    ) async -> Bool {
        let record = await httpRecords.record(forKey: key, in: self)
        return record?.state(ofVariant: processorIdentifier, at: diskStorage.config.now(), policy: policy) == .fresh
    }
}
