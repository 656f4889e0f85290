import Dispatch

/// Lets one decode of a large image (``VipsRuntime/largeDecodePixels`` or more) run at a time, process-wide;
/// smaller decodes never wait.
///
/// A large JPEG needs tens of megabytes while it decodes, shrink-on-load or not (a progressive one keeps every DCT
/// coefficient until its last scan: ~80 MB for 5120 × 2880). Two at once on a two-core pool doubled the peak
/// resident size of a prefetch; one at a time costs little throughput, as the other decoding threads go on with
/// smaller images.
struct LargeDecodeGate {
    private static let semaphore = DispatchSemaphore(value: 1)
    private let entered: Bool

    /// Waits (blocking the thread, which is a decoding thread) while another large decode runs.
    static func enter(pixels: Int) -> LargeDecodeGate {
        guard pixels >= VipsRuntime.largeDecodePixels else { return LargeDecodeGate(entered: false) }
        semaphore.wait()
        return LargeDecodeGate(entered: true)
    }

    func leave() {
        if entered { Self.semaphore.signal() }
    }
}
