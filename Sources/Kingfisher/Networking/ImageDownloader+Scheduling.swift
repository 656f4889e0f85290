import Foundation
import KingfisherLocking

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ImageDownloader {
    /// The downloader's HTTP tasks: the ones callers can join, how many run, and the queue of the others.
    struct Scheduler {
        /// Tasks callers can still join, by request.
        var tasks: [RequestKey: SessionDataTask] = [:]
        var running = 0
        /// Tasks waiting for a slot, by Kingfisher's `downloadPriority` (the highest of their callers').
        var queue = PriorityQueue<Float, SessionDataTask>()
    }

    /// Attaches `caller` to the task for `request`, creating and queueing one if none can be joined.
    /// - Returns: the task, the caller's token, whether the task is new, and whether it must start now.
    func join(_ request: URLRequest, caller: DownloadWaiter) -> (
        task: SessionDataTask, token: SessionDataTask.CancelToken, isNew: Bool, startNow: Bool
    ) {
        let key = RequestKey(request)
        let priority = caller.options.downloadPriority
        let limit = configuration.maxConcurrentDownloads
        let joined = scheduler.withLock {
            scheduler -> (task: SessionDataTask, token: SessionDataTask.CancelToken, isNew: Bool, startNow: Bool) in
            if let existing = scheduler.tasks[key], let token = existing.state.withLock({ $0.add(caller) }) {
                scheduler.queue.raise(to: priority) { $0 === existing }
                metrics.countCoalescedWaiter()
                return (existing, token, false, false)
            }
            let task = SessionDataTask(
                originalURL: caller.url, request: request, key: key, redirectHandler: caller.options.redirectHandler,
                partialDownloads: caller.context.partialDownloads, requestLogger: caller.options.logger ?? logger,
                downloader: self)
            let token = task.state.withLock { $0.add(caller) } ?? 0
            scheduler.tasks[key] = task
            defer { recordDepths(of: scheduler) }
            if scheduler.running < limit {
                scheduler.running += 1
                return (task, token, true, true)
            }
            scheduler.queue.append(task, priority: priority)
            return (task, token, true, false)
        }
        // A shared download (and the decodes it runs) takes the highest task priority of its callers.
        if !joined.isNew, let driver = joined.task.state.withLock({ $0.escalation(for: caller.priority) }) {
            driver.escalatePriority(to: caller.priority)
        }
        return joined
    }

    /// Records the queue's depth and the running downloads, under the scheduler's lock so that a backend's last
    /// value is the current one.
    private func recordDepths(of scheduler: Scheduler) {
        metrics.recordDepths(queued: scheduler.queue.count, running: scheduler.running)
    }

    /// Starts fetching `task`, which holds a download slot.
    func launch(_ task: SessionDataTask) {
        guard task.state.withLock({ $0.begin() }) else {
            // Every caller left between taking the slot and starting.
            taskEnded(task, heldSlot: true)
            return
        }
        let priority = task.state.withLock { $0.priority }
        let fetch = Task(priority: priority) { await self.run(task) }
        if !task.state.withLock({ $0.attachFetch(fetch) }) {
            fetch.cancel()
        }
    }

    /// Stops new callers from joining `task` (its data is in; later callers need a new request).
    func forget(_ task: SessionDataTask) {
        scheduler.withLock { scheduler in
            if scheduler.tasks[task.key] === task {
                scheduler.tasks[task.key] = nil
            }
        }
    }

    /// Forgets `task`, frees its slot if it held one, and starts queued tasks that now fit.
    func taskEnded(_ task: SessionDataTask, heldSlot: Bool) {
        let limit = configuration.maxConcurrentDownloads
        let next = scheduler.withLock { scheduler -> [SessionDataTask] in
            if scheduler.tasks[task.key] === task {
                scheduler.tasks[task.key] = nil
            }
            if heldSlot {
                scheduler.running -= 1
            }
            var next: [SessionDataTask] = []
            while scheduler.running < limit, let queued = scheduler.queue.popNext() {
                scheduler.running += 1
                next.append(queued)
            }
            recordDepths(of: scheduler)
            return next
        }
        for queued in next { launch(queued) }
    }

    /// Every caller of a queued task cancelled: drop it from the queue and report the end of the download.
    func sessionTaskCancelledWhileQueued(_ task: SessionDataTask) {
        scheduler.withLock { scheduler in
            scheduler.queue.removeAll { $0 === task }
            if scheduler.tasks[task.key] === task {
                scheduler.tasks[task.key] = nil
            }
            recordDepths(of: scheduler)
        }
        metrics.countDownload(status: "cancelled")
        delegate?.imageDownloader(
            self, didFinishDownloadingImageForURL: task.url, with: nil, error: CancellationError())
    }
}
