import Foundation
import KingfisherLocking
import Tracing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What makes two processings of a downloaded body the same: the request and the processing.
struct ProcessingWorkKey: Hashable, Sendable {
    let request: RequestKey
    let processing: ProcessingKey
}

extension ImageDownloader {
    /// A run of the shared fetch of one request; its waiters are the processings of the body.
    typealias FetchRun = SharedWork<RequestKey, FetchOutcome>.Run
    /// A run of the shared processing of one body; its waiters are the callers (``DownloadWaiter``s).
    typealias BodyProcessingRun = SharedWork<ProcessingWorkKey, Processed>.Run

    /// What a fetch hands the processings of its body.
    struct FetchOutcome: Sendable {
        let task: SessionDataTask
        let result: Result<Fetched, KingfisherError>
        /// The download slot, held until the fetch and every processing of its body are done.
        let slot: SlotLease?
    }

    /// What a processing hands its callers.
    struct Processed: Sendable {
        let task: SessionDataTask?
        /// `nil` when the processing was stopped (its callers had all left).
        let result: Result<ImageLoadingResult, KingfisherError>?
        /// The final response, for the delegate's `imageDownloader(_:didDownload:for:with:)`.
        let response: HTTPURLResponse?
    }

    /// Fetches one HTTP task, shared by every processing of its body (``fetches``): waits for a download slot in
    /// the order of its callers' `downloadPriority`, fetches, tells the delegate, and hands the body on with the
    /// slot, which the processings keep until they are done: bodies waiting for a worker thread count against
    /// ``Configuration/maxConcurrentDownloads``, so memory stays bounded when decoding is slower than the network.
    ///
    /// It is cancelled (by the shared work) when its last caller left: a queued download leaves the queue, a
    /// running one is cut off.
    func runFetch(_ task: SessionDataTask) async -> FetchOutcome {
        delegate?.imageDownloader(self, willDownloadImageForURL: task.url, with: task.request)
        guard let slot = await takeSlot(for: task), task.state.withLock({ $0.begin() }) else {
            // Every caller left while it was queued.
            task.state.withLock { $0.end(cancelled: true) }
            metrics.countDownload(status: "cancelled")
            delegate?.imageDownloader(
                self, didFinishDownloadingImageForURL: task.url, with: nil, error: CancellationError())
            return FetchOutcome(
                task: task, result: .failure(.requestError(reason: .asyncTaskContextCancelled)), slot: nil)
        }
        let started = ContinuousClock.now
        let (fetched, response) = await fetch(task)
        let callers = task.callers
        // A 304 has no body to process.
        let hasBody = (try? fetched.get()).map { !$0.isNotModified } ?? false
        task.state.withLock { $0.end(cancelled: callers.isEmpty) }
        report(task, fetched: fetched, response: response, callers: callers, elapsed: ContinuousClock.now - started)
        // The delegate's data modifier runs before the did-finish call, so that call carries its failure.
        let outcome =
            callers.isEmpty || !hasBody ? fetched : fetched.flatMap { fetched in modifyData(fetched, of: task) }
        task.releaseBody()
        let error: (any Error)?
        switch outcome {
        case .failure(let failure): error = failure
        case .success: error = callers.isEmpty ? CancellationError() : nil
        }
        delegate?.imageDownloader(self, didFinishDownloadingImageForURL: task.url, with: response, error: error)
        return FetchOutcome(task: task, result: outcome, slot: slot)
    }

    /// The body as the delegate's `imageDownloader(_:didDownload:with:)` returns it; `dataModifyingFailed` for `nil`.
    private func modifyData(_ fetched: Fetched, of task: SessionDataTask) -> Result<Fetched, KingfisherError> {
        guard let delegate else { return .success(fetched) }
        guard let data = delegate.imageDownloader(self, didDownload: fetched.data, with: task) else {
            return .failure(.responseError(reason: .dataModifyingFailed(task: task)))
        }
        var modified = fetched
        modified.data = data
        return .success(modified)
    }

    /// Decodes and processes a downloaded body once for every caller with the same request and processing
    /// (``processings``): waits for the fetch (`fetch` joins it, for the first of this run's callers or the run,
    /// whichever asks first), then decodes with the options of the caller that started the run. As in Kingfisher,
    /// the result names the URL of the request sent (after the request modifier).
    ///
    /// It is cancelled (by the shared work) when its last caller left: it leaves the fetch (which stops when no
    /// processing is left), and a decode waiting in its queue leaves it.
    func runProcessing(
        _ run: BodyProcessingRun, options: KingfisherParsedOptionsInfo, workers: ImageWorkers,
        engine: ImageEngine.Configuration?, fetch: () -> SharedWork<RequestKey, FetchOutcome>.Ticket
    ) async -> Processed {
        guard let outcome = await run.attachment(orMake: fetch).value() else {
            return Processed(task: nil, result: nil, response: nil)
        }
        let task = outcome.task
        let url = task.originalURL ?? task.url
        let fetched: Fetched
        switch outcome.result {
        case .failure(let error):
            return Processed(task: task, result: .failure(error), response: nil)
        case .success(let body):
            fetched = body
        }
        let headers = fetched.responseHeaders
        if fetched.isNotModified {
            var unchanged = ImageLoadingResult(
                image: KFCrossPlatformImage(), url: url, originalData: Data(), metrics: fetched.metrics)
            unchanged.response = headers
            unchanged.isNotModified = true
            return Processed(task: task, result: .success(unchanged), response: fetched.response)
        }
        let data = fetched.data
        let metrics = self.metrics
        let headerOnly = options.processor is ImageHeaderCheck.Processor
        let work: @Sendable () -> Result<KFCrossPlatformImage, KingfisherError> = {
            metrics.timeProcessing(headerOnly: headerOnly) { ImageProcessing.image(from: data, options: options) }
        }
        let result: Result<KFCrossPlatformImage, KingfisherError>?
        if headerOnly, options.processingQueue == nil, ImageHeaderCheck.sizeReadInSwift(of: data) != nil {
            // A header read in Swift takes microseconds and no memory: checked here, not sent to the decode lane
            // (and never held for the admission of large decodes, which it does not make).
            result = Task.isCancelled ? nil : work()
        } else {
            let engine = engine ?? configuration.engine
            result = await StageSpan.decode.run { span in
                span.attributes["kingfisher.bytes"] = data.count
                return await workers.runUnlessCancelled(
                    on: options.processingQueue, decoding: data,
                    shrunkToFit: ImageWorkers.shrinkOnLoadSide(of: options.processor, for: data, options: options),
                    engine: engine, work)
            }
        }
        // The slot is given back once every processing of the body has let it go.
        withExtendedLifetime(outcome.slot) {}
        let loaded = result.map { result in
            result.map { image in
                var loaded = ImageLoadingResult(
                    image: image, url: url, originalData: data, metrics: fetched.metrics)
                loaded.response = headers
                return loaded
            }
        }
        return Processed(task: task, result: loaded, response: fetched.response)
    }
}
