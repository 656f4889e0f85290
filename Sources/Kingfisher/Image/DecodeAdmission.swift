import Dispatch
import Foundation

/// Lets one memory-hungry decode run at a time: a progressive JPEG of ``largeProgressivePixelCount`` pixels or
/// more holds all its coefficients in memory while decoding (two bytes per sample, 44–88 MB for 5120 x 2880, even
/// when shrunk on load), so two or more at once on different threads multiply the peak. Other decodes are not
/// held back. Measured on the wallpaper corpus (120 thumbnails, 2 decoding threads): see BENCHMARKS.md.
enum DecodeAdmission {
    /// Progressive JPEGs from this many pixels on decode one at a time (8 megapixels: above 4K UHD).
    static let largeProgressivePixelCount = 8_000_000

    // A counting semaphore of one: waiters block their own (decoding) thread, never an actor or the caller's
    // event loop; decodes run on the processing pool or wherever the caller chose to decode synchronously.
    private static let largeDecodes = DispatchSemaphore(value: 1)

    /// Runs `body` (the decode of `data`), first waiting for any other large decode to finish when this one is
    /// large too.
    static func admitting<T, E: Error>(_ data: Data, format: ImageFormat, _ body: () throws(E) -> T) throws(E) -> T {
        guard format == .JPEG, let header = JPEGFrameHeader(data), header.isProgressive,
            header.width * header.height >= largeProgressivePixelCount
        else { return try body() }
        largeDecodes.wait()
        defer { largeDecodes.signal() }
        return try body()
    }
}
