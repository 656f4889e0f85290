import KingfisherLocking

/// An owner's periodic upkeep: an ``ImageCache``'s memory storage dropping expired values and its disk sweeps (a
/// ``MemoryStorage/Backend`` made alone has one of its own). One task serves every job of the owner: it sleeps
/// until the next job is due, runs the jobs that are, and ends when none is left, so an owner with no jobs has no
/// task at all. Two owners share nothing: cancelling or driving one leaves the other's jobs as they were.
///
/// A job is a quick, non-blocking call (one that blocks hands its work to its own threads); it stops when it
/// returns `false` (its owner is gone) or when it is cancelled.
///
/// Its hooks, for tests: ``observer`` is told each job's turns (``Event``), and a work made with
/// ``Timing/manual`` has a clock that moves only when ``advance(by:)`` moves it, running the jobs that fall due on
/// the caller's thread, so a test of a two-minute interval takes no time and waits for nothing.
///
/// ```swift
/// let work = PeriodicWork()
/// let job = work.every(120) { [weak storage] in storage?.removeExpired() != nil }
/// work.cancel(job)
/// ```
final class PeriodicWork: Sendable {
    /// How the work tells the time.
    enum Timing: Sendable {
        /// The continuous clock: a task of the work's own sleeps until the next job is due. The default.
        case continuous
        /// A clock that stands still until ``PeriodicWork/advance(by:)`` moves it; no task is ever started. For
        /// tests.
        case manual
    }

    /// What happened to one job, told to the ``observer`` outside the work's lock, in order.
    enum Event: Sendable, Equatable {
        /// The job was added, first due one `interval` from then.
        case scheduled(job: Int, interval: Duration)
        /// The job's turn came: it is called now.
        case due(job: Int)
        /// The job's call returned; `continues` is what it returned.
        case ran(job: Int, continues: Bool)
        /// The job is not called again: cancelled, or it returned `false`.
        case stopped(job: Int)

        /// The job it is about.
        var job: Int {
            switch self {
            case .scheduled(let job, _), .due(let job), .ran(let job, _), .stopped(let job): job
            }
        }
    }

    private struct Job {
        let interval: Duration
        var due: ContinuousClock.Instant
        let tick: @Sendable () -> Bool
    }

    private struct State {
        var jobs: [Int: Job] = [:]
        var nextID = 0
        /// The task that runs the jobs, when it wakes next, and its number (continuous timing only).
        var runner: (task: Task<Void, Never>, wakes: ContinuousClock.Instant, number: Int)?
        var runnersStarted = 0
        /// The manual clock's time; `nil` with continuous timing.
        var manualNow: ContinuousClock.Instant?
        var outbox = EventOutbox<Event>()

        var now: ContinuousClock.Instant { manualNow ?? .now }

        /// Forgets the runner (the caller cancels it, outside the lock).
        mutating func endRunner() -> Task<Void, Never>? {
            defer { runner = nil }
            return runner?.task
        }
    }

    private let state: Locked<State>

    /// An owner's work, telling the time by `timing` (``Timing/continuous`` by default).
    init(timing: Timing = .continuous) {
        var initial = State()
        if case .manual = timing { initial.manualNow = .now }
        state = Locked(initial)
    }

    deinit {
        state.withLock { $0.runner?.task }?.cancel()
    }

    /// Who is told each job's turns (``Event``); `nil` by default, when nothing is recorded. Set it before the jobs
    /// it is to see are added (a test's hook).
    var observer: (@Sendable (Event) -> Void)? {
        get { state.withLock { $0.outbox.observer } }
        set { state.withLock { $0.outbox.observer = newValue } }
    }

    /// Calls `tick` every `seconds` (first after one interval) until it returns `false` or the job is cancelled.
    /// A non-positive or infinite interval schedules nothing (`nil`).
    func every(_ seconds: Double, _ tick: @escaping @Sendable () -> Bool) -> Int? {
        guard seconds > 0, seconds.isFinite else { return nil }
        let interval = Duration.seconds(seconds)
        let (id, replaced, events) = state.withLock { state -> (Int, Task<Void, Never>?, EventOutbox<Event>.Batch?) in
            let id = state.nextID
            state.nextID += 1
            let due = state.now + interval
            state.jobs[id] = Job(interval: interval, due: due, tick: tick)
            state.outbox.post(.scheduled(job: id, interval: interval))
            let events = state.outbox.claim()
            // A manual clock has no runner; a runner sleeping past this job's first turn is replaced by one that
            // wakes for it.
            guard state.manualNow == nil else { return (id, nil, events) }
            if let runner = state.runner, runner.wakes <= due { return (id, nil, events) }
            let replaced = state.runner?.task
            state.runnersStarted += 1
            state.runner = (startRunner(number: state.runnersStarted), due, state.runnersStarted)
            return (id, replaced, events)
        }
        replaced?.cancel()
        deliverEvents(events)
        return id
    }

    /// Stops a job; it is not called again (a call running now finishes). The last job's cancellation ends the
    /// runner.
    func cancel(_ id: Int?) {
        guard let id else { return }
        let (runner, events) = state.withLock { state -> (Task<Void, Never>?, EventOutbox<Event>.Batch?) in
            guard state.jobs.removeValue(forKey: id) != nil else { return (nil, nil) }
            state.outbox.post(.stopped(job: id))
            return (state.jobs.isEmpty ? state.endRunner() : nil, state.outbox.claim())
        }
        runner?.cancel()
        deliverEvents(events)
    }

    /// How many jobs are scheduled.
    var jobCount: Int { state.withLock { $0.jobs.count } }

    /// Whether the job `id` is scheduled.
    func isScheduled(_ id: Int) -> Bool { state.withLock { $0.jobs[id] != nil } }

    /// Whether a task runs the jobs now (never with a manual clock, nor without jobs once the last has stopped).
    var hasRunner: Bool { state.withLock { $0.runner != nil } }

    /// Moves a manual clock `duration` on, calling each job as often, and in the order, as the continuous clock would
    /// have over that time, on the caller's thread; returns once every job due by then has run.
    /// - Precondition: the work was made with ``Timing/manual``.
    func advance(by duration: Duration) {
        let target = state.withLock { state -> ContinuousClock.Instant in
            precondition(state.manualNow != nil, "advance(by:) moves a manual clock only")
            return state.manualNow! + duration
        }
        while true {
            // The clock stops at each turn on the way, so a job's next turn is counted from the one it just had.
            let turn = state.withLock { state -> ContinuousClock.Instant? in
                guard let next = state.jobs.values.map(\.due).min(), next <= target else {
                    state.manualNow = target
                    return nil
                }
                state.manualNow = max(state.manualNow!, next)
                return state.manualNow
            }
            guard let turn else { return }
            _ = runDueJobs(at: turn)
        }
    }

    /// Starts runner `number`: it runs until a newer one replaces it, or no job is left.
    private func startRunner(number: Int) -> Task<Void, Never> {
        Task.detached(priority: .utility) { [weak self] in
            while let wake = self?.runDueJobs(at: .now, asRunner: number) {
                try? await Task.sleep(until: wake, clock: .continuous)
                guard !Task.isCancelled else { return }
            }
        }
    }

    /// Runs the jobs due at `now` and schedules their next turn; the next job's turn, or `nil` when no job is left.
    /// For runner `asRunner`, `nil` also when it is not the current runner any more, and it ends then.
    private func runDueJobs(at now: ContinuousClock.Instant, asRunner runner: Int? = nil) -> ContinuousClock.Instant? {
        let (due, events) = state.withLock { state -> ([(Int, @Sendable () -> Bool)], EventOutbox<Event>.Batch?) in
            var due: [(Int, @Sendable () -> Bool)] = []
            if let runner, state.runner?.number != runner { return (due, nil) }
            for (id, job) in state.jobs.sorted(by: { ($0.value.due, $0.key) < ($1.value.due, $1.key) })
            where job.due <= now {
                due.append((id, job.tick))
                state.jobs[id]?.due = max(job.due + job.interval, now)
                state.outbox.post(.due(job: id))
            }
            return (due, state.outbox.claim())
        }
        deliverEvents(events)
        let results = due.map { ($0.0, $0.1()) }
        let (next, after) = state.withLock {
            state -> (ContinuousClock.Instant?, EventOutbox<Event>.Batch?) in
            for (id, continues) in results {
                state.outbox.post(.ran(job: id, continues: continues))
                if !continues, state.jobs.removeValue(forKey: id) != nil { state.outbox.post(.stopped(job: id)) }
            }
            let next = state.jobs.values.map(\.due).min()
            guard let runner else { return (next, state.outbox.claim()) }
            guard state.runner?.number == runner else { return (nil, state.outbox.claim()) }
            guard let next else {
                state.runner = nil
                return (nil, state.outbox.claim())
            }
            state.runner?.wakes = next
            return (next, state.outbox.claim())
        }
        deliverEvents(after)
        return next
    }

    private func deliverEvents(_ batch: EventOutbox<Event>.Batch?) {
        EventOutbox.deliver(batch) { state.withLock { $0.outbox.next() } }
    }
}
