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
/// Work bound for the processing pool is admitted (``admission``) before it takes a pool thread, so a
/// second large progressive JPEG waits without holding a thread the other images could use. A decode that
/// arrives otherwise (on a caller's own queue or thread, or a large image of another format) waits on its thread
/// at a second, separate gate (``enter(_:format:pixels:)``): the admitted work needs a pool thread to finish, so
/// pool threads must never wait for it — with two gates at most two large decodes overlap, and nothing deadlocks.
struct LargeDecodeGate {
    /// Marks a thread running admitted work, whose decodes pass the thread gate.
    private final class Admission: Sendable {}

    /// Admits one large progressive JPEG at a time to the pool.
    static let admission = Limiter(limit: 1)
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

    /// Whether decoding `data` must be admitted first: a progressive JPEG of ``VipsRuntime/largeDecodePixels`` or
    /// more.
    static func needsAdmission(_ data: Data?) -> Bool {
        guard let data, let header = JPEGFrameHeader(data) else { return false }
        return header.isProgressive && header.width * header.height >= VipsRuntime.largeDecodePixels
    }

    /// `work` with its thread marked as admitted while it runs, so the decode inside does not wait again at the
    /// thread gate.
    static func marking<T>(_ work: @escaping @Sendable () -> T) -> @Sendable () -> T {
        {
            admittedThread.currentValue = Admission()
            defer { admittedThread.currentValue = nil }
            return work()
        }
    }

    static func isLarge(_ data: Data, format: ImageFormat, pixels: Int) -> Bool {
        guard ImageEngine.Configuration.current.largeDecodesOneAtATime, pixels >= VipsRuntime.largeDecodePixels else {
            return false
        }
        guard format == .JPEG else { return true }
        return JPEGFrameHeader(data)?.isProgressive ?? true
    }
}
