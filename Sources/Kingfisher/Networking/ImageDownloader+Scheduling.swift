import Foundation
import KingfisherLocking

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ImageDownloader {
    /// The downloader's HTTP tasks: the ones callers can join, and which of them hold a connection slot or wait
    /// for one.
    struct Scheduler {
        /// The connection slots: the limiter's state, with the waiting tasks ordered by Kingfisher's
        /// `downloadPriority` (the highest of their callers').
        typealias Slots = Limiter.StateMachine<ObjectIdentifier, Float, SessionDataTask>

        /// Tasks callers can still join, by request.
        var tasks: [RequestKey: SessionDataTask] = [:]
        var slots: Slots

        init(limit: Int) {
            slots = Slots(limit: limit)
        }
    }

    /// Attaches `caller` to the task for `request`, creating and queueing one if none can be joined.
    /// - Returns: the task, the caller's token, whether the task is new, and whether it must start now.
    func join(_ request: URLRequest, caller: DownloadWaiter) -> (
        task: SessionDataTask, token: SessionDataTask.CancelToken, isNew: Bool, startNow: Bool
    ) {
        let key = RequestKey(request)
        let priority = caller.options.downloadPriority
        let joined = scheduler.withLock {
            scheduler -> (task: SessionDataTask, token: SessionDataTask.CancelToken, isNew: Bool, startNow: Bool) in
            if let existing = scheduler.tasks[key], let token = existing.state.withLock({ $0.add(caller) }) {
                scheduler.slots.raise(ObjectIdentifier(existing), to: priority)
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
            let action = scheduler.slots.acquire(ObjectIdentifier(task), priority: priority, waiter: task)
            if case .run = action {
                return (task, token, true, true)
            }
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
        metrics.recordDepths(queued: scheduler.slots.waitingCount, running: scheduler.slots.holdingCount)
    }

    /// Starts fetching `task`, which holds a download slot.
    func launch(_ task: SessionDataTask) {
        guard task.state.withLock({ $0.begin() }) else {
            // Every caller left between taking the slot and starting.
            taskEnded(task)
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

    /// Forgets `task`, frees the slot it held, and starts the queued task that takes it.
    func taskEnded(_ task: SessionDataTask) {
        let next = scheduler.withLock { scheduler -> SessionDataTask? in
            if scheduler.tasks[task.key] === task {
                scheduler.tasks[task.key] = nil
            }
            defer { recordDepths(of: scheduler) }
            guard case .resume(let queued) = scheduler.slots.release(ObjectIdentifier(task)) else {
                return nil
            }
            return queued
        }
        if let next { launch(next) }
    }

    /// Every caller of a queued task cancelled: drop it from the queue and report the end of the download.
    func sessionTaskCancelledWhileQueued(_ task: SessionDataTask) {
        scheduler.withLock { scheduler in
            _ = scheduler.slots.withdraw(ObjectIdentifier(task))
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
