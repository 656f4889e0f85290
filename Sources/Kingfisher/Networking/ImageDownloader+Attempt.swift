import AsyncHTTPClient
import Foundation
import KingfisherLocking

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ImageDownloader {
    /// Prepares the caller's request (modifier, URL check) and attaches it to an HTTP task.
    func startAttempt(for caller: DownloadCaller, retriedCount: Int, userInfo: (any Sendable)?) {
        let reportCancelled: @Sendable () -> Void = {
            caller.deliver(.failure(.requestError(reason: .asyncTaskContextCancelled)))
        }
        guard caller.task.setPending(onCancel: reportCancelled) else {
            reportCancelled()
            return
        }
        let attempt = Attempt(retriedCount: retriedCount, userInfo: userInfo)
        let request = URLRequest(url: caller.url, timeoutInterval: downloadTimeout)
        guard let modifier = caller.options.requestModifier else {
            send(request, for: caller, attempt: attempt)
            return
        }
        if let synchronous = modifier as? any ImageDownloadRequestModifier {
            let modify: (URLRequest) -> URLRequest? = synchronous.modified(for:)
            sendModified(modify(request), modifier: modifier, for: caller, attempt: attempt)
        } else {
            Task {
                let modified = await modifier.modified(for: request)
                self.sendModified(modified, modifier: modifier, for: caller, attempt: attempt)
            }
        }
    }

    private func sendModified(
        _ request: URLRequest?, modifier: any AsyncImageDownloadRequestModifier, for caller: DownloadCaller,
        attempt: Attempt
    ) {
        guard let request else {
            caller.deliver(.failure(.requestError(reason: .emptyRequest)))
            modifier.onDownloadTaskStarted?(nil)
            return
        }
        let started = send(request, for: caller, attempt: attempt)
        modifier.onDownloadTaskStarted?(started ? caller.task : nil)
    }

    /// Checks the URL and joins or creates the HTTP task; `false` when nothing was started.
    @discardableResult
    private func send(_ request: URLRequest, for caller: DownloadCaller, attempt: Attempt) -> Bool {
        guard let url = request.url, ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
            !(url.host ?? "").isEmpty
        else {
            caller.deliver(.failure(.requestError(reason: .invalidURL(request: request))))
            return false
        }
        guard !isShutDown else {
            caller.deliver(.failure(.responseError(reason: .URLSessionError(error: HTTPClientError.alreadyShutdown))))
            return false
        }
        guard !caller.task.isCancelled else {
            // Cancelled while the request was prepared; the caller has been told already.
            return false
        }
        caller.setAttempt(attempt)
        let joined = join(request, caller: caller)
        if joined.isNew {
            delegate?.imageDownloader(self, willDownloadImageForURL: caller.url, with: request)
        }
        let (task, token) = (joined.task, joined.token)
        let attached = caller.task.attach(task, token: token) {
            caller.deliver(.failure(.requestError(reason: .taskCancelled(task: task, token: token))))
        }
        if !attached {
            // Cancelled in the instant since the check above; leave the task (it ends if no one else joined).
            joined.task.cancel(token: joined.token)
        }
        if joined.startNow {
            // Even a task every caller left must go through launch, which gives its slot back.
            launch(joined.task)
        }
        return attached
    }

    /// Delivers `result` to `caller`, or retries a failure when the caller's retry strategy says so.
    ///
    /// As in Kingfisher, the strategy is asked about every failure of the download: response errors, an empty or
    /// non-image body (`processingFailed`), a failing processor, a limit. Cancellation never reaches here, and
    /// request errors (an empty request, an invalid URL) are delivered before a request exists: neither is retried.
    func finish(_ caller: DownloadCaller, with result: Result<ImageLoadingResult, KingfisherError>) {
        guard case .failure(let error) = result, let strategy = caller.options.retryStrategy, !error.isTaskCancelled
        else {
            caller.deliver(result)
            return
        }
        let attempt = caller.attempt
        let reportCancelled: @Sendable () -> Void = {
            caller.deliver(.failure(.requestError(reason: .asyncTaskContextCancelled)))
        }
        guard caller.task.setPending(onCancel: reportCancelled) else {
            reportCancelled()
            return
        }
        let context = RetryContext(
            url: caller.url, error: error, retriedCount: attempt.retriedCount, userInfo: attempt.userInfo)
        strategy.retry(context: context) { decision in
            switch decision {
            case .retry(let userInfo):
                self.startAttempt(for: caller, retriedCount: attempt.retriedCount + 1, userInfo: userInfo)
            case .stop:
                caller.deliver(.failure(error))
            }
        }
    }
}

/// Which try of a caller's download this is, and what the retry strategy passed along.
struct Attempt: Sendable {
    var retriedCount: Int
    var userInfo: (any Sendable)?
}
