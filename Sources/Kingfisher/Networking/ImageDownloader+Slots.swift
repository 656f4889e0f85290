import Foundation
import KingfisherLocking

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ImageDownloader {
    /// The downloader's connection slots, and the HTTP tasks that hold one or wait for one.
    struct Scheduler {
        /// The connection slots: the limiter's state, with the waiting downloads ordered by Kingfisher's
        /// `downloadPriority` (the highest of their callers').
        typealias Slots = Limiter.StateMachine<ObjectIdentifier, Float, CheckedContinuation<Bool, Never>>

        /// The HTTP tasks waiting for a slot or holding one, by request (the latest for each).
        var tasks: [RequestKey: SessionDataTask] = [:]
        var slots: Slots
        /// The next caller's token: distinct from every other caller's of the downloader.
        var nextToken: SessionDataTask.CancelToken = 0

        init(limit: Int) {
            slots = Slots(limit: limit)
        }
    }

    /// A download slot held by an HTTP task: given back when the last holder of the lease lets it go (the fetch,
    /// then every processing of its body), so that bodies waiting for a worker thread count against
    /// ``Configuration/maxConcurrentDownloads``: memory stays bounded when decoding is slower than the network.
    final class SlotLease: Sendable {
        private let downloader: ImageDownloader
        private let task: SessionDataTask

        fileprivate init(downloader: ImageDownloader, task: SessionDataTask) {
            self.downloader = downloader
            self.task = task
        }

        deinit {
            downloader.releaseSlot(of: task)
        }
    }

    /// Waits until `task` holds a download slot, in the order of its callers' `downloadPriority`; `nil` when the
    /// calling task (the shared fetch) is cancelled first: every caller left while it was queued.
    func takeSlot(for task: SessionDataTask) async -> SlotLease? {
        let id = ObjectIdentifier(task)
        let granted = await withTaskCancellationHandler {
            await withSanitizedCheckedContinuation { (waiter: CheckedContinuation<Bool, Never>) in
                // The priority is read under the scheduler's lock, so that a caller joining meanwhile raises it
                // (``raiseQueued(_:to:)``) either before (it is counted) or after (it finds the task queued).
                let action = scheduler.withLock { scheduler in
                    scheduler.tasks[task.key] = task
                    defer { recordDepths(of: scheduler) }
                    return scheduler.slots.acquire(id, priority: task.downloadPriority, waiter: waiter)
                }
                resume(action, waiter)
            }
        } onCancel: {
            let action = scheduler.withLock { scheduler in
                defer { recordDepths(of: scheduler) }
                return scheduler.slots.cancel(id)
            }
            resume(action, nil)
        }
        guard granted else {
            scheduler.withLock { scheduler in
                if scheduler.tasks[task.key] === task { scheduler.tasks[task.key] = nil }
            }
            return nil
        }
        return SlotLease(downloader: self, task: task)
    }

    private func resume(_ action: Scheduler.Slots.Action, _ caller: CheckedContinuation<Bool, Never>?) {
        switch action {
        case .none: break
        case .run: caller?.resume(returning: true)
        case .resume(let waiter): waiter.resume(returning: true)
        case .cancel(let waiter), .refuse(let waiter): waiter.resume(returning: false)
        }
    }

    /// Records `task` as the download of its request (for ``cancel(url:)`` and ``cancelAll()``).
    func registerDownload(_ task: SessionDataTask) {
        scheduler.withLock { $0.tasks[task.key] = task }
    }

    /// A caller of `downloadPriority` joined the download of `key`: a queued download moves up to it.
    func raiseQueued(_ key: RequestKey, to downloadPriority: Float) {
        scheduler.withLock { scheduler in
            guard let task = scheduler.tasks[key] else { return }
            scheduler.slots.raise(ObjectIdentifier(task), to: downloadPriority)
        }
    }

    /// Records the queue's depth and the running downloads, under the scheduler's lock so that a backend's last
    /// value is the current one.
    private func recordDepths(of scheduler: Scheduler) {
        metrics.recordDepths(queued: scheduler.slots.waitingCount, running: scheduler.slots.holdingCount)
    }

    /// Frees the slot `task` held, and hands it to the queued download that takes it.
    fileprivate func releaseSlot(of task: SessionDataTask) {
        let action = scheduler.withLock { scheduler in
            if scheduler.tasks[task.key] === task {
                scheduler.tasks[task.key] = nil
            }
            defer { recordDepths(of: scheduler) }
            return scheduler.slots.release(ObjectIdentifier(task))
        }
        resume(action, nil)
    }
}
