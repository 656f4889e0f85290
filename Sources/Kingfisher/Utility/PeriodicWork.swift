import KingfisherLocking

/// The library's periodic upkeep: memory storages dropping expired values, disk caches sweeping. One task serves
/// every job in the process: it sleeps until the next job is due, runs the jobs that are, and ends when none is
/// left, so a process with a hundred caches has one timer, not two hundred, and one with none has no task at all.
///
/// A job is a quick, non-blocking call (one that blocks hands its work to its own threads); it stops when it
/// returns `false` (its owner is gone) or when it is cancelled.
///
/// ```swift
/// let job = PeriodicWork.shared.every(120) { [weak storage] in storage?.removeExpired() != nil }
/// PeriodicWork.shared.cancel(job)
/// ```
final class PeriodicWork: Sendable {
    /// The process's upkeep.
    static let shared = PeriodicWork()

    private struct Job {
        let interval: Duration
        var due: ContinuousClock.Instant
        let tick: @Sendable () -> Bool
    }

    private struct State {
        var jobs: [Int: Job] = [:]
        var nextID = 0
        /// The task that runs the jobs, and when it wakes next.
        var runner: (task: Task<Void, Never>, wakes: ContinuousClock.Instant)?
    }

    private let state = Locked(State())

    /// Calls `tick` every `seconds` (first after one interval) until it returns `false` or the job is cancelled.
    /// A non-positive or infinite interval schedules nothing (`nil`).
    func every(_ seconds: Double, _ tick: @escaping @Sendable () -> Bool) -> Int? {
        guard seconds > 0, seconds.isFinite else { return nil }
        let interval = Duration.seconds(seconds)
        let due = ContinuousClock.now + interval
        let (id, replaced) = state.withLock { state -> (Int, Task<Void, Never>?) in
            let id = state.nextID
            state.nextID += 1
            state.jobs[id] = Job(interval: interval, due: due, tick: tick)
            // A runner sleeping past this job's first turn is replaced by one that wakes for it.
            if let runner = state.runner, runner.wakes <= due { return (id, nil) }
            let replaced = state.runner?.task
            state.runner = (startRunner(), due)
            return (id, replaced)
        }
        replaced?.cancel()
        return id
    }

    /// Stops a job; it is not called again (a call running now finishes).
    func cancel(_ id: Int?) {
        guard let id else { return }
        _ = state.withLock { $0.jobs.removeValue(forKey: id) }
    }

    /// How many jobs are scheduled.
    var jobCount: Int { state.withLock { $0.jobs.count } }

    /// Whether the job `id` is scheduled.
    func isScheduled(_ id: Int) -> Bool { state.withLock { $0.jobs[id] != nil } }

    private func startRunner() -> Task<Void, Never> {
        Task.detached(priority: .utility) { [self] in
            while let wake = runDueJobs() {
                try? await Task.sleep(until: wake, clock: .continuous)
                guard !Task.isCancelled else { return }
            }
        }
    }

    /// Runs the jobs that are due and schedules their next turn; when the runner should wake next, or `nil` (and
    /// the runner ends) when no job is left or a newer runner took over.
    private func runDueJobs() -> ContinuousClock.Instant? {
        let now = ContinuousClock.now
        let due = state.withLock { state -> [(Int, @Sendable () -> Bool)] in
            var due: [(Int, @Sendable () -> Bool)] = []
            for (id, job) in state.jobs where job.due <= now {
                due.append((id, job.tick))
                state.jobs[id]?.due = max(job.due + job.interval, now)
            }
            return due
        }
        let ended = due.filter { !$0.1() }.map(\.0)
        return state.withLock { state -> ContinuousClock.Instant? in
            for id in ended { state.jobs.removeValue(forKey: id) }
            guard !Task.isCancelled else { return nil }
            guard let next = state.jobs.values.map(\.due).min() else {
                state.runner = nil
                return nil
            }
            state.runner?.wakes = next
            return next
        }
    }
}
