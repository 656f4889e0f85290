import Dispatch
import Foundation

/// Lets one memory-hungry decode run at a time, process-wide; other decodes never wait.
///
/// Memory-hungry means ``VipsRuntime/largeDecodePixels`` or more, and for JPEG only when progressive: a
/// progressive JPEG keeps every DCT coefficient until its last scan (two bytes a sample, 44–88 MB for
/// 5120 × 2880) even when shrunk on load, while a baseline one shrunk on load streams its rows in a few MB.
/// Two at once on a two-core pool doubled the peak resident size of a prefetch; one at a time costs little
/// throughput, as the other decoding threads go on with the other images.
struct LargeDecodeGate {
    private static let semaphore = DispatchSemaphore(value: 1)
    private let entered: Bool

    /// Waits (blocking the thread, which is a decoding thread) while another large decode runs, when the decode
    /// of `data` (`format`, `pixels` in its first frame) is a large one too.
    static func enter(_ data: Data, format: ImageFormat, pixels: Int) -> LargeDecodeGate {
        guard isLarge(data, format: format, pixels: pixels) else { return LargeDecodeGate(entered: false) }
        semaphore.wait()
        return LargeDecodeGate(entered: true)
    }

    func leave() {
        if entered { Self.semaphore.signal() }
    }

    static func isLarge(_ data: Data, format: ImageFormat, pixels: Int) -> Bool {
        guard pixels >= VipsRuntime.largeDecodePixels else { return false }
        guard format == .JPEG else { return true }
        return JPEGFrameHeader(data)?.isProgressive ?? true
    }
}
