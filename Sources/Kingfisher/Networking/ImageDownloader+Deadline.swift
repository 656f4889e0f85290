import Foundation
import KingfisherLocking

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ImageDownloader {
    /// Fetches the task's request (see ``fetchHops(_:trace:)``) within ``Configuration/maximumDownloadDuration``:
    /// when the deadline passes first, the fetch is cancelled (its connection closed) and the download fails with
    /// ``KingfisherError/ResponseErrorReason/downloadDurationExceeded(url:limit:)``.
    ///
    /// AsyncHTTPClient's own deadline ends with the response head, and its read timeout restarts with every byte,
    /// so neither ends a body that trickles in; this deadline covers everything from the request to the last byte.
    func fetch(_ task: SessionDataTask) async -> (Result<Fetched, KingfisherError>, HTTPURLResponse?) {
        let limit = configuration.maximumDownloadDuration
        let trace = FetchTrace(url: task.request.url ?? task.url)
        guard limit.isFinite else { return await fetchHops(task, trace: trace) }
        // Clamped so that the Duration cannot overflow; 10^9 s is 31 years.
        let deadline = ContinuousClock.now + .seconds(min(max(limit, 0), 1e9))
        return await withTaskGroup(of: DeadlineRace.self) { group in
            group.addTask { .fetched(await self.fetchHops(task, trace: trace)) }
            group.addTask {
                do {
                    try await Task.sleep(until: deadline, clock: .continuous)
                    return .deadlinePassed
                } catch {
                    return .timerCancelled
                }
            }
            while let outcome = await group.next() {
                switch outcome {
                case .fetched(let fetched):
                    group.cancelAll()
                    return fetched
                case .deadlinePassed:
                    group.cancelAll()
                    let (url, response) = trace.snapshot
                    let reason = KingfisherError.ResponseErrorReason.downloadDurationExceeded(url: url, limit: limit)
                    return (.failure(.responseError(reason: reason)), response)
                case .timerCancelled:
                    // The download was cancelled: the fetch ends on its own and reports it.
                    continue
                }
            }
            // Not reached: the fetch always finishes.
            return (.failure(.requestError(reason: .asyncTaskContextCancelled)), nil)
        }
    }

    /// What ends first: the fetch, or the timer of its deadline.
    enum DeadlineRace: Sendable {
        case fetched((Result<Fetched, KingfisherError>, HTTPURLResponse?))
        case deadlinePassed
        case timerCancelled
    }

    /// Where a fetch has got to, for the error of a deadline that ends it: the URL being fetched (the latest
    /// redirect target) and the last response head received.
    final class FetchTrace: Sendable {
        private let state: Locked<(url: URL, response: HTTPURLResponse?)>

        init(url: URL) {
            state = Locked((url, nil))
        }

        var snapshot: (url: URL, response: HTTPURLResponse?) { state.withLock { $0 } }

        func fetching(_ url: URL) {
            state.withLock { $0.url = url }
        }

        func received(_ response: HTTPURLResponse) {
            state.withLock { $0.response = response }
        }
    }
}
