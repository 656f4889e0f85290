import AsyncHTTPClient
import Foundation
import KingfisherLocking

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ImageDownloader {
    /// Where a caller's download is: the HTTP task and the caller's token on it once it joined one, `nil` while it
    /// prepares a request (before the first, and between retries). The edge that holds a ``DownloadTask`` records
    /// it there; nothing inside the downloader holds a handle.
    typealias Placement = @Sendable (_ place: (task: SessionDataTask, token: SessionDataTask.CancelToken)?) -> Void

    /// One caller's download: the request prepared (modifier, URL check), joined to the shared download and
    /// processing for it, the caller's image awaited, and failures retried as the options' retry strategy decides.
    /// Cancelling the calling task cancels this caller only; `placed` hears where the download is.
    ///
    /// As in Kingfisher, the strategy is asked about every failure of the download: response errors, an empty or
    /// non-image body (`processingFailed`), a failing processor, a limit. Cancellation is never retried, and request
    /// errors (an empty request, an invalid URL) end the download before a request exists.
    func load(
        _ url: URL, options: KingfisherParsedOptionsInfo, progressBlock: DownloadProgressBlock?,
        joined: JoinedAttempt? = nil, context: DownloadContext = DownloadContext(), placed: Placement? = nil
    ) async -> Result<ImageLoadingResult, KingfisherError> {
        var retriedCount = 0
        var userInfo: (any Sendable)?
        var joined = joined
        while true {
            let result = await attempt(
                url, options: options, progressBlock: progressBlock, joined: joined, context: context, placed: placed)
            joined = nil
            guard case .failure(let error) = result, let strategy = options.retryStrategy, !error.isTaskCancelled,
                !error.isRequestError
            else {
                return result
            }
            placed?(nil)
            let context = RetryContext(url: url, error: error, retriedCount: retriedCount, userInfo: userInfo)
            let decision = await Self.decision(of: strategy, for: context)
            guard !Task.isCancelled else { return .failure(.requestError(reason: .asyncTaskContextCancelled)) }
            switch decision {
            case .retry(let next):
                retriedCount += 1
                userInfo = next
            case .stop, nil:
                return result
            }
        }
    }

    /// What the strategy decides; `nil` when the calling task is cancelled first (a strategy may wait long).
    private static func decision(of strategy: any RetryStrategy, for context: RetryContext) async -> RetryDecision? {
        let ask: (CallbackEdge<RetryDecision?>) -> Void = { deliver in
            strategy.retry(context: context) { deliver($0) }
        }
        return await CallbackEdge.awaiting(ask, whenCancelled: { $0(nil) })
    }

    /// One try: the request, then the shared processing's result for this caller. `joined` is a first try the
    /// caller joined already (see ``joinSynchronously(_:options:context:progressBlock:placed:)``).
    private func attempt(
        _ url: URL, options: KingfisherParsedOptionsInfo, progressBlock: DownloadProgressBlock?,
        joined: JoinedAttempt? = nil, context: DownloadContext, placed: Placement?
    ) async -> Result<ImageLoadingResult, KingfisherError> {
        if let joined { return await joined.result() }
        guard !Task.isCancelled else { return .failure(.requestError(reason: .asyncTaskContextCancelled)) }
        let modifier = options.requestModifier
        let request: URLRequest
        switch await prepare(url, modifier: modifier) {
        case .success(let prepared): request = Self.adding(context.conditionalHeaders, to: prepared)
        case .failure(let error): return .failure(error)
        }
        let joined = join(
            request, url: url, options: options, progressBlock: progressBlock, context: context, placed: placed)
        return await joined.result()
    }

    /// The request for `url` (for an `s3://` URL, the object's at its endpoint): the modifier's (an `async`
    /// modifier awaited), checked.
    private func prepare(
        _ url: URL, modifier: (any AsyncImageDownloadRequestModifier)?
    ) async -> Result<URLRequest, KingfisherError> {
        if let modifier, !(modifier is any ImageDownloadRequestModifier) {
            let target: URL
            switch requestURL(for: url) {
            case .success(let sent): target = sent
            case .failure(let error): return .failure(error)
            }
            let modified = await modifier.modified(for: URLRequest(url: target, timeoutInterval: downloadTimeout))
            return check(modified, modifier: modifier)
        }
        return prepareSynchronously(url, modifier: modifier) ?? .failure(.requestError(reason: .emptyRequest))
    }

    /// The request for `url` when the modifier is synchronous (or absent); `nil` for an `async` modifier.
    private func prepareSynchronously(
        _ url: URL, modifier: (any AsyncImageDownloadRequestModifier)?
    ) -> Result<URLRequest, KingfisherError>? {
        let target: URL
        switch requestURL(for: url) {
        case .success(let sent): target = sent
        case .failure(let error): return .failure(error)
        }
        let request = URLRequest(url: target, timeoutInterval: downloadTimeout)
        guard let modifier else { return check(request, modifier: nil) }
        guard let synchronous = modifier as? any ImageDownloadRequestModifier else { return nil }
        let modify: (URLRequest) -> URLRequest? = synchronous.modified(for:)
        return check(modify(request), modifier: modifier)
    }

    /// `request` with `headers` (a revalidation's conditions, a resumption's range), replacing any the modifier set.
    static func adding(_ headers: [String: String]?, to request: URLRequest) -> URLRequest {
        guard let headers, !headers.isEmpty else { return request }
        var changed = request
        for (name, value) in headers { changed.setValue(value, forHTTPHeaderField: name) }
        return changed
    }

    /// `request` without the header fields named in `headers`.
    static func removing(_ headers: [String: String], from request: URLRequest) -> URLRequest {
        var changed = request
        for name in headers.keys { changed.setValue(nil, forHTTPHeaderField: name) }
        return changed
    }

    /// An empty request, a URL that is not http(s) with a host, or a shut-down downloader ends the try.
    private func check(
        _ request: URLRequest?, modifier: (any AsyncImageDownloadRequestModifier)?
    ) -> Result<URLRequest, KingfisherError> {
        let failure: KingfisherError
        if let request {
            guard let target = request.url, ["http", "https"].contains(target.scheme?.lowercased() ?? ""),
                !(target.host ?? "").isEmpty
            else {
                modifier?.onDownloadTaskStarted?(nil)
                return .failure(.requestError(reason: .invalidURL(request: request)))
            }
            guard isShutDown else { return .success(request) }
            failure = .responseError(reason: .URLSessionError(error: HTTPClientError.alreadyShutdown))
        } else {
            failure = .requestError(reason: .emptyRequest)
        }
        modifier?.onDownloadTaskStarted?(nil)
        return .failure(failure)
    }

    /// Joins the shared processing of `request`'s body with the caller's processing (started when none runs),
    /// which joins (or starts) the shared download of `request`: at once, without waiting.
    private func join(
        _ request: URLRequest, url: URL, options: KingfisherParsedOptionsInfo, progressBlock: DownloadProgressBlock?,
        context: DownloadContext, placed: Placement?
    ) -> JoinedAttempt {
        let key = RequestKey(request)
        let (engine, workers) = (context.engine, context.workers ?? self.workers)
        let waiter = DownloadWaiter(
            url: url, options: options, context: context, progressBlock: progressBlock, workers: workers,
            token: nextToken())
        let fetch: @Sendable (BodyProcessingRun) -> SharedWork<RequestKey, FetchOutcome>.Ticket = { [self] run in
            joinFetch(request, key: key, url: url, options: options, context: context, for: run)
        }
        let ticket = processings.join(
            ProcessingWorkKey(request: key, processing: ProcessingKey(options, engine: engine)), guest: waiter
        ) { [self] run in
            await runProcessing(run, options: options, workers: workers, engine: engine) { fetch(run) }
        }
        waiter.joined(leave: ticket.leave)
        var startedFetch = false
        let fetchTicket = ticket.run.attachment {
            startedFetch = true
            return fetch(ticket.run)
        }
        // The fetch's handle is attached when the fetch is joined.
        let task = fetchTicket.run.attachment(as: SessionDataTask.self)!
        raiseQueued(key, to: options.downloadPriority)
        if !(ticket.isNew && startedFetch && fetchTicket.isNew) { metrics.countCoalescedWaiter() }
        placed?((task, waiter.token))
        return JoinedAttempt(.joined(ticket, task: task, token: waiter.token), downloader: self)
    }

    /// Joins (or starts) the shared download of `request` for a processing of its body (`run`), and makes its
    /// handle the processing's callers see.
    private func joinFetch(
        _ request: URLRequest, key: RequestKey, url: URL, options: KingfisherParsedOptionsInfo,
        context: DownloadContext, for run: BodyProcessingRun
    ) -> SharedWork<RequestKey, FetchOutcome>.Ticket {
        let made = SessionDataTask(
            originalURL: url, request: request, key: key, redirectHandler: options.redirectHandler,
            partialDownloads: context.partialDownloads, requestLogger: options.logger ?? logger,
            bodyBuffers: bodyBuffers)
        // Before the fetch starts: it queues at its callers' priority.
        made.follow(run)
        let ticket = fetches.join(key, guest: run) { [self] fetchRun in
            await runFetch(fetchRun.attachment(orMake: { made }))
        }
        let task = ticket.run.attachment(orMake: { made })
        task.follow(run)
        // Known to `cancel(url:)` from now on, before its fetch has queued.
        if ticket.isNew { registerDownload(task) }
        if !ticket.isNew, let highest = run.guests(as: DownloadWaiter.self).map(\.options.downloadPriority).max() {
            // A processing joining a queued download raises it to its callers' priority.
            raiseQueued(key, to: highest)
        }
        return ticket
    }

    /// A token for a new caller: distinct from every other caller's of the downloader.
    private func nextToken() -> SessionDataTask.CancelToken {
        scheduler.withLock { scheduler in
            defer { scheduler.nextToken += 1 }
            return scheduler.nextToken
        }
    }

    /// The first try of a callback caller, joined before `downloadImage` returns (as in Kingfisher, whose task is
    /// attached at once) when the request needs no `async` modifier; `nil` otherwise. A request the modifier
    /// refused, or an invalid URL, is the try's result.
    func joinSynchronously(
        _ url: URL, options: KingfisherParsedOptionsInfo, context: DownloadContext,
        progressBlock: DownloadProgressBlock?, placed: Placement?
    ) -> JoinedAttempt? {
        guard let prepared = prepareSynchronously(url, modifier: options.requestModifier) else {
            return nil
        }
        switch prepared {
        case .success(let request):
            return join(
                Self.adding(context.conditionalHeaders, to: request), url: url, options: options,
                progressBlock: progressBlock, context: context, placed: placed)
        case .failure(let error):
            return JoinedAttempt(.failed(error), downloader: self)
        }
    }
}

/// A caller's place on the shared processing of a download (or the failure of its request): the result it will
/// get, awaited once. Cancelling the task that awaits it makes the caller leave (it gets `taskCancelled`).
struct JoinedAttempt: Sendable {
    enum Place: Sendable {
        case joined(
            SharedWork<ProcessingWorkKey, ImageDownloader.Processed>.Ticket, task: SessionDataTask,
            token: SessionDataTask.CancelToken)
        case failed(KingfisherError)
    }

    let place: Place
    let downloader: ImageDownloader

    init(_ place: Place, downloader: ImageDownloader) {
        self.place = place
        self.downloader = downloader
    }

    /// The caller's result: its processing's, or `taskCancelled` when it left first. The delegate hears of each
    /// caller's image, as Kingfisher's.
    func result() async -> Result<ImageLoadingResult, KingfisherError> {
        switch place {
        case .failed(let error):
            return .failure(error)
        case .joined(let ticket, let task, let token):
            guard let processed = await ticket.value(), let result = processed.result else {
                return .failure(.requestError(reason: .taskCancelled(task: task, token: token)))
            }
            if case .success(let loaded) = result, !loaded.isNotModified {
                downloader.delegate?.imageDownloader(
                    downloader, didDownload: loaded.image, for: task.originalURL ?? task.url, with: processed.response)
            }
            return result
        }
    }
}
