import Dispatch
import Foundation
import NIOPosix
import KingfisherLocking

/// Lets one memory-hungry decode run at a time, process-wide; other decodes never wait.
///
/// Memory-hungry means ``VipsRuntime/largeDecodePixels`` or more, and for JPEG only when progressive: a
/// progressive JPEG keeps every DCT coefficient until its last scan (two bytes a sample, 44–88 MB for
/// 5120 × 2880) even when shrunk on load, while a baseline one shrunk on load streams its rows in a few MB.
/// Two at once on a two-core pool doubled the peak resident size of a prefetch.
///
/// Work bound for the processing pool is admitted before it takes a pool thread (``admitted(_:_:work:)``), so a
/// second large progressive JPEG waits without holding a thread the other images could use. A decode that
/// arrives otherwise (on a caller's own queue or thread, or a large image of another format) waits on its thread
/// at a second, separate gate (``enter(_:format:pixels:)``): the admitted work needs a pool thread to finish, so
/// pool threads must never wait for it — with two gates at most two large decodes overlap, and nothing deadlocks.
struct LargeDecodeGate {
    private struct State {
        var busy = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// Marks a thread running admitted work, whose decodes pass the thread gate.
    private final class Admission: Sendable {}

    private static let admission = Locked(State())
    private static let threadGate = DispatchSemaphore(value: 1)
    private static let admittedThread = ThreadSpecificVariable<Admission>()
    private let entered: Bool

    /// Waits (blocking the thread, which is a decoding thread) while another large decode runs, when the decode
    /// of `data` (`format`, `pixels` in its first frame) is a large one too and the thread's work was not
    /// admitted already.
    static func enter(_ data: Data, format: ImageFormat, pixels: Int) -> LargeDecodeGate {
        guard isLarge(data, format: format, pixels: pixels), admittedThread.currentValue == nil else {
            return LargeDecodeGate(entered: false)
        }
        threadGate.wait()
        return LargeDecodeGate(entered: true)
    }

    func leave() {
        if entered { Self.threadGate.signal() }
    }

    /// Runs `work` (which will decode `data`) once the gate admits it: at once unless `data` is a large
    /// progressive JPEG and another large decode holds the gate. `work` runs through `schedule` (the pool) with
    /// its thread marked, so the decode inside does not wait again.
    static func admitted<T: Sendable>(
        _ data: Data?, _ schedule: (@escaping @Sendable () -> T) async -> T, work: @escaping @Sendable () -> T
    ) async -> T {
        guard let data, let header = JPEGFrameHeader(data), header.isProgressive,
            header.width * header.height >= VipsRuntime.largeDecodePixels
        else { return await schedule(work) }
        await withSanitizedCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = admission.withLock { state -> Bool in
                guard state.busy else {
                    state.busy = true
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
        defer { release() }
        return await schedule {
            admittedThread.currentValue = Admission()
            defer { admittedThread.currentValue = nil }
            return work()
        }
    }

    /// Hands the admission gate to the first waiting task, or opens it.
    private static func release() {
        let next = admission.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiters.isEmpty else {
                state.busy = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }

    static func isLarge(_ data: Data, format: ImageFormat, pixels: Int) -> Bool {
        guard ImageEngine.Configuration.current.largeDecodesOneAtATime, pixels >= VipsRuntime.largeDecodePixels else {
            return false
        }
        guard format == .JPEG else { return true }
        return JPEGFrameHeader(data)?.isProgressive ?? true
    }
}
