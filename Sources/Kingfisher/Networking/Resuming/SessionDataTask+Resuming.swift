import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension SessionDataTask {
    /// The kept start of this task's body, when the task may ask for the rest: a plain `GET` (no range or
    /// condition of its own) whose store of cut-off bodies holds one for its URL.
    func keptStart() -> PartialDownload? {
        guard let store = partialDownloads, (request.httpMethod ?? "GET") == "GET",
            ["Range", "If-Range", "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since"]
                .allSatisfy({ request.value(forHTTPHeaderField: $0) == nil })
        else { return nil }
        return store.partial(for: keptStartURL)
    }

    /// Keeps the body received so far, of the representation `identity` names, for the next try; bodies too short
    /// to be worth it are not kept.
    func keepReceivedBody(as identity: PartialDownload.Identity) {
        guard let store = partialDownloads else { return }
        let received = mutableData
        guard received.count >= PartialDownload.minimumKeptLength else { return }
        store.keep(PartialDownload(identity: identity, bytes: received), for: keptStartURL)
    }

    /// Forgets the kept start of this task's body.
    func forgetKeptStart() {
        partialDownloads?.remove(for: keptStartURL)
    }

    /// What a kept start is stored under: the URL of the request as first sent.
    private var keptStartURL: URL { request.url ?? url }
}
