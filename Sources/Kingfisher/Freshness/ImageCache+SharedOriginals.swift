package import Foundation

/// Originals kept somewhere every server instance reads (`kf serve --result-store`): what an instance needs to hand
/// one on (its validators), and to take one in as if it had downloaded it itself.
extension ImageCache {
    /// The validators of the response the entries of `key` were made from (its HTTP record); `nil` without one.
    package func httpValidators(forKey key: String) async -> (entityTag: String?, lastModified: String?)? {
        guard let record = await httpRecords.record(forKey: key, in: self) else { return nil }
        return (record.entityTag, record.lastModified)
    }

    /// Keeps `data` as the original of `key` on disk, with the HTTP record of a response that sent these validators
    /// and is fresh until `freshUntil`, as a download following HTTP caching would have left it: a retrieval then
    /// makes its results from it without asking the origin, and revalidates it with the validators once it is
    /// stale. Entries made from other bytes under `key` are removed, as after a new download. `false` when the
    /// bytes could not be written.
    package func keepOriginal(
        _ data: Data, forKey key: String, entityTag: String?, lastModified: String?, freshUntil: Date
    ) async -> Bool {
        let now = diskStorage.config.now()
        var fields = ["Cache-Control": "max-age=\(max(0, Int(freshUntil.timeIntervalSince(now))))"]
        if let entityTag { fields["ETag"] = entityTag }
        if let lastModified { fields["Last-Modified"] = lastModified }
        guard
            let record = HTTPFreshness.record(
                of: data, ResponseHeaders(fields: fields, requestTime: now, responseTime: now))
        else { return false }
        do {
            try await storeToDisk(data, forKey: key)
        } catch {
            return false
        }
        await HTTPFreshness.save(record, variants: [""], forKey: key, in: self, originalCache: self, expiration: nil)
        return true
    }
}
