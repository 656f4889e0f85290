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
        // Callers arriving while a body is processed join it; a 304 has no body to share.
        let hasBody = (try? fetched.get()).map { !$0.isNotModified } ?? false
        let handed = task.state.withLock { $0.complete(acceptingLateCallers: hasBody) }
        let callers = handed.map(\.waiter)
        report(task, fetched: fetched, response: response, callers: callers, elapsed: ContinuousClock.now - started)
        defer {
            forget(task)
            taskEnded(task)
        }
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
        guard case .success(let data) = outcome else {
            _ = task.state.withLock { $0.takeLateCallers() }
            if case .failure(let failure) = outcome {
                for waiter in callers { waiter.resume(.failure(failure)) }
            }
            return
        }
        if data.isNotModified {
            let headers = data.responseHeaders
            for caller in callers {
                var unchanged = ImageLoadingResult(
                    image: KFCrossPlatformImage(), url: task.originalURL ?? caller.url, originalData: Data(),
                    metrics: data.metrics)
                unchanged.response = headers
                unchanged.isNotModified = true
                caller.resume(.success(unchanged))
            }
            return
        }
        await process(data, of: task, for: handed)
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

    /// Decodes and processes the data once per distinct processor and image options, then delivers, each group as
    /// it is done. Callers that join meanwhile share the run of their group when it is the one in progress, else
    /// wait for their own; when the last group is done and nobody joined, the task is forgotten before it delivers,
    /// so a caller that goes on to ask again makes a new request. As in Kingfisher, the result and the delegate
    /// name the URL of the request sent (after the request modifier).
    ///
    /// A group whose callers have all left is not decoded: its decode leaves the decode queue when the last one
    /// goes while it waits, and is not started when they went before.
    private func process(
        _ fetched: Fetched, of task: SessionDataTask, for callers: [SessionDataTask.StateMachine.Caller]
    ) async {
        let delegate = self.delegate
        let data = fetched.data
        let headers = fetched.responseHeaders
        var queue = ProcessingGroups()
        queue.add(callers)
        while let (key, first, tokens) = queue.next() {
            let (metrics, options, decoder) = (self.metrics, first.options, first.decoder)
            let engine = first.context.engine ?? configuration.engine
            // The group's last caller leaving takes the decode out of its queue.
            let stop = PermitStop()
            let anyoneLeft = task.state.withLock { $0.beginDecode(for: tokens) { stop.stop() } }
            if !anyoneLeft { stop.stop() }
            let headerOnly = options.processor is ImageHeaderCheck.Processor
            let work: @Sendable () -> Result<KFCrossPlatformImage, KingfisherError> = {
                metrics.timeProcessing(headerOnly: headerOnly) { ProcessingStage.image(from: data, options: options) }
            }
            let result: Result<KFCrossPlatformImage, KingfisherError>?
            if headerOnly, options.processingQueue == nil, ImageHeaderCheck.sizeReadInSwift(of: data) != nil {
                // A header read in Swift takes microseconds and no memory: checked here, not sent to the decode
                // lane (and never held for the admission of large decodes, which it does not make).
                result = anyoneLeft ? work() : nil
            } else {
                let ran = await decoder.runUnlessCancelled(
                    on: options.processingQueue, decoding: data, engine: engine, stoppedBy: stop, work)
                // A run stopped (every caller of the group left, maybe mid-way) has nothing to deliver: callers who
                // joined the group since are decoded for in a run of their own.
                result = stop.isStopped ? nil : ran
            }
            // Callers that joined meanwhile: those of this group take this result, the others queue for a run of
            // their own. The task finishes when this was the last group and nobody else joined.
            while true {
                let isLast = queue.isEmpty(after: key)
                let late = task.state.withLock { $0.takeLateCallers(finishingIfNone: isLast && result != nil) }
                guard !late.isEmpty else {
                    if isLast && result != nil { forget(task) }
                    break
                }
                queue.add(late)
            }
            guard let result else {
                if Task.isCancelled {
                    // The run itself was cancelled (nothing does that once the body is in; if something did, no
                    // decode would start again): every caller still waiting is told, so none waits for ever.
                    endCancelled(task, queue: &queue)
                    return
                }
                // Every caller of the group had left (each was told at once): nothing to deliver. Callers of the
                // group who joined after that are decoded for in the next round.
                let gone = queue.removeDelivered(key)
                task.state.withLock { $0.endDecode(delivering: gone) }
                if queue.isEmpty {
                    let late = task.state.withLock { $0.takeLateCallers(finishingIfNone: true) }
                    if late.isEmpty { forget(task) } else { queue.add(late) }
                }
                continue
            }
            let group = queue.take(key)
            task.state.withLock { $0.endDecode(delivering: group.map(\.token)) }
            for caller in group.map(\.waiter) {
                switch result {
                case .success(let image):
                    delegate?.imageDownloader(
                        self, didDownload: image, for: task.originalURL ?? caller.url, with: fetched.response)
                    var loaded = ImageLoadingResult(
                        image: image, url: task.originalURL ?? caller.url, originalData: data, metrics: fetched.metrics)
                    loaded.response = headers
                    caller.resume(.success(loaded))
                case .failure(let error):
                    caller.resume(.failure(error))
                }
            }
        }
    }
}

extension ImageDownloader {
    /// Tells every caller of `task` still waiting (queued in `queue` or joining late) that it was cancelled, and
    /// finishes the task.
    fileprivate func endCancelled(_ task: SessionDataTask, queue: inout ProcessingGroups) {
        var waiting = queue.removeAll()
        while true {
            let late = task.state.withLock { $0.takeLateCallers(finishingIfNone: true) }
            if late.isEmpty { break }
            waiting += late
        }
        task.state.withLock { $0.endDecode(delivering: waiting.map(\.token)) }
        forget(task)
        for caller in waiting {
            caller.waiter.resume(.failure(.requestError(reason: .taskCancelled(task: task, token: caller.token))))
        }
    }
}

/// The callers of one body, grouped by what they need done to it, in the order the groups first appeared. A group
/// stays in the queue while it runs, so callers who join it meanwhile share its result.
private struct ProcessingGroups {
    typealias Caller = SessionDataTask.StateMachine.Caller
    private var groups: [ProcessingKey: [Caller]] = [:]
    private var order: [ProcessingKey] = []

    var isEmpty: Bool { order.isEmpty }

    mutating func add(_ callers: [Caller]) {
        for caller in callers {
            let key = ProcessingKey(caller.waiter.options, engine: caller.waiter.context.engine)
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(caller)
        }
    }

    /// The group to run next, its first caller (whose options, stage and limits it runs with) and its callers'
    /// tokens.
    func next() -> (key: ProcessingKey, first: DownloadWaiter, tokens: [CancelToken])? {
        guard let key = order.first, let group = groups[key], let first = group.first?.waiter else { return nil }
        return (key, first, group.map(\.token))
    }

    /// Whether no group but `key` is waiting.
    func isEmpty(after key: ProcessingKey) -> Bool {
        order.allSatisfy { $0 == key }
    }

    /// Removes the group of `key` and returns its callers.
    mutating func take(_ key: ProcessingKey) -> [Caller] {
        order.removeAll { $0 == key }
        return groups.removeValue(forKey: key) ?? []
    }

    /// Removes every group; returns their callers.
    mutating func removeAll() -> [Caller] {
        defer {
            groups = [:]
            order = []
        }
        return order.flatMap { groups[$0] ?? [] }
    }

    /// Removes the callers of `key`'s group who were delivered already (they left), and the group when none is
    /// left; returns their tokens.
    mutating func removeDelivered(_ key: ProcessingKey) -> [CancelToken] {
        let (gone, kept) = (groups[key] ?? []).reduce(into: ([CancelToken](), [Caller]())) { split, caller in
            if caller.waiter.isDelivered { split.0.append(caller.token) } else { split.1.append(caller) }
        }
        if kept.isEmpty {
            _ = take(key)
        } else {
            groups[key] = kept
        }
        return gone
    }

    typealias CancelToken = SessionDataTask.CancelToken
}
