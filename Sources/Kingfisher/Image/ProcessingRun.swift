import CVips
import Foundation
import KingfisherLocking

/// One job of an owner's workers (a decode, and the processors that follow it on the same thread): its
/// ``ImageEngine/timeLimit`` runs from the job's start over everything it computes, a chain of processors included
/// (the limit for the largest image it computed, source or result), and it stops early once nobody waits for its
/// result (its caller's task cancelled). Pixels are computed in strips; both are
/// checked before each strip, and between the effects of a processor that applies many.
final class ProcessingRun: Sendable {
    private struct Extent {
        var pixels = 0
        var frames = 1
    }

    /// When the job started, on the clock of `cvips_monotonic_microseconds()`.
    let started: Int
    private let limit: ImageEngine.TimeLimit
    /// Whether the calling task's cancellation stops the job (work that must happen once asked for runs on).
    private let stopsWhenCancelled: Bool
    private let extent = Locked(Extent())

    init(limit: ImageEngine.TimeLimit, stopsWhenCancelled: Bool) {
        started = cvips_monotonic_microseconds()
        self.limit = limit
        self.stopsWhenCancelled = stopsWhenCancelled
    }

    /// Whether nobody waits for the job's result any more. Read on the job's thread, inside its task.
    var isAbandoned: Bool {
        stopsWhenCancelled && Task.isCancelled
    }

    /// The job's deadline (0 for none) once it computes `pixels` pixels in `frames` frames, and the seconds it
    /// stands for: the limit of the largest work of the job so far, from the job's start.
    func deadline(coveringPixels pixels: Int, frames: Int = 1) -> (at: Int, seconds: TimeInterval) {
        let largest = extent.withLock { extent -> Extent in
            extent.pixels = max(extent.pixels, pixels)
            extent.frames = max(extent.frames, frames)
            return extent
        }
        let seconds = limit.seconds(forPixels: largest.pixels, frames: largest.frames)
        guard seconds.isFinite, seconds < 1e9 else { return (0, seconds) }
        return (started + max(1, Int(seconds * 1_000_000)), seconds)
    }

    /// The error to stop with now, between two steps of a job: the time limit when it is past, a stop when nobody
    /// waits; `nil` to go on.
    func check() -> VipsError? {
        if isAbandoned {
            return VipsError(operation: "process", message: "stopped: nobody waits for the result")
        }
        let (deadline, seconds) = deadline(coveringPixels: 0)
        if deadline > 0, cvips_monotonic_microseconds() > deadline {
            return VipsError(operation: "process", message: "time limit exceeded", timeLimit: seconds)
        }
        return nil
    }

    /// The job running on this thread, if any.
    static var current: ProcessingRun? { ImageEngine.Configuration.currentRun }
}

extension ImageEngine {
    /// Throws when the processing job running on this thread should stop between two steps: past its time limit
    /// (the error carries it), or abandoned by everyone who waited for it. Does nothing outside a job.
    package static func checkRun() throws(VipsError) {
        if let error = ProcessingRun.current?.check() { throw error }
    }
}
