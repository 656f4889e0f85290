import Foundation
import KingfisherLocking
import NIOPosix

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ImageDownloader {
    /// Runs one HTTP task to the end: fetch, tell the delegate, process for each caller, then free the slot.
    ///
    /// The slot is held while processing, so bodies waiting for a decoder count against
    /// ``Configuration/maxConcurrentDownloads``: memory stays bounded when decoding is slower than the network.
    /// Callers of the same request that arrive while the body is processed join the task and are processed from
    /// the same body, so a burst of retrievals of one URL never downloads it twice.
    func run(_ task: SessionDataTask) async {
        let started = ContinuousClock.now
        let (fetched, response) = await fetch(task)
        let succeeded = (try? fetched.get()) != nil
        var callers = task.state.withLock { $0.complete(acceptingLateCallers: succeeded) }
        report(task, fetched: fetched, response: response, callers: callers, elapsed: ContinuousClock.now - started)
        defer {
            forget(task)
            taskEnded(task, heldSlot: true)
        }
        // The delegate's data modifier runs before the did-finish call, so that call carries its failure.
        let outcome = callers.isEmpty ? fetched : fetched.flatMap { fetched in modifyData(fetched, of: task) }
        task.releaseBody()
        let error: (any Error)?
        switch outcome {
        case .failure(let failure): error = failure
        case .success: error = callers.isEmpty ? CancellationError() : nil
        }
        delegate?.imageDownloader(self, didFinishDownloadingImageForURL: task.url, with: response, error: error)
        guard case .success(let data) = outcome else {
            _ = task.state.withLock { $0.takeLateCallers() }
            if case .failure(let failure) = outcome {
                for waiter in callers { waiter.resume(.failure(failure)) }
            }
            return
        }
        while !callers.isEmpty {
            var late: [DownloadWaiter] = []
            await process(data, of: task, for: callers) {
                // Before the last callers hear: a caller that goes on to ask again must make a new request.
                late = task.state.withLock { $0.takeLateCallers() }
                if late.isEmpty { forget(task) }
            }
            callers = late
        }
    }

    /// The body as the delegate's `imageDownloader(_:didDownload:with:)` returns it; `dataModifyingFailed` for `nil`.
    private func modifyData(_ fetched: Fetched, of task: SessionDataTask) -> Result<Fetched, KingfisherError> {
        guard let delegate else { return .success(fetched) }
        guard let data = delegate.imageDownloader(self, didDownload: fetched.data, with: task) else {
            return .failure(.responseError(reason: .dataModifyingFailed(task: task)))
        }
        return .success(Fetched(data: data, response: fetched.response, metrics: fetched.metrics))
    }

    /// Decodes and processes the data once per distinct processor and image options, then delivers, each group as
    /// it is done; `beforeLastDelivery` runs before the last group hears. As in Kingfisher, the result and the
    /// delegate name the URL of the request sent (after the request modifier).
    private func process(
        _ fetched: Fetched, of task: SessionDataTask, for callers: [DownloadWaiter], beforeLastDelivery: () -> Void
    ) async {
        let delegate = self.delegate
        let data = fetched.data
        var groups: [ProcessingKey: [DownloadWaiter]] = [:]
        var order: [ProcessingKey] = []
        for caller in callers {
            let key = ProcessingKey(caller.options)
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(caller)
        }
        for key in order {
            guard let group = groups[key], let options = group.first?.options else { continue }
            let metrics = self.metrics
            let result = await DecodeExecutor.run(
                on: options.processingQueue, decoding: data, engine: options.engine ?? configuration.engine
            ) {
                metrics.timeProcessing { ProcessingStage.image(from: data, options: options) }
            }
            if key == order.last { beforeLastDelivery() }
            for caller in group {
                switch result {
                case .success(let image):
                    delegate?.imageDownloader(
                        self, didDownload: image, for: task.originalURL ?? caller.url, with: fetched.response)
                    let loaded = ImageLoadingResult(
                        image: image, url: task.originalURL ?? caller.url, originalData: data, metrics: fetched.metrics)
                    caller.resume(.success(loaded))
                case .failure(let error):
                    caller.resume(.failure(error))
                }
            }
        }
    }
}
