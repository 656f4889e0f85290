/// A ``CallbackQueue`` as a task executor: code that prefers it runs where the queue runs its blocks (a
/// `processingQueue`, a provider's `loadingQueue`), in the task that asked for the work, with no callback.
final class CallbackQueueExecutor: TaskExecutor, Sendable {
    let queue: CallbackQueue

    /// An executor for `queue`, or `nil` when the queue runs blocks in place (``CallbackQueue/untouch``): the
    /// calling task runs the work itself.
    init?(_ queue: CallbackQueue) {
        guard queue.runsElsewhere else { return nil }
        // A step of a task is never run inside the call that enqueues it.
        if case .mainCurrentOrAsync = queue {
            self.queue = .mainAsync
        } else {
            self.queue = queue
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let step = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.execute { step.runSynchronously(on: executor) }
    }
}
