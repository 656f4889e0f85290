import CVips
import Foundation

/// Refuses an SVG whose drawing would overrun ``ImageEngine/timeLimit``, before drawing it at full size.
///
/// librsvg draws a document (in 2,000 x 2,000-pixel tiles, each paying for the whole document's filters) in calls
/// that nothing can interrupt, and an SVG's cost is not in its byte count or declared size: 202 bytes of
/// `feTurbulence` with 200 octaves over 8,000 x 8,000 pixels draw for many minutes. So an SVG is first drawn at
/// about 64 x 64 and 256 x 256 pixels (half a second for that file); the two times give a cost per pixel beside
/// the cost of reading the document, and the full drawing they predict must fit in the limit. Small SVGs are
/// drawn directly: their full drawing costs no more than the trials.
enum SVGDrawingCost {
    /// Pixels of the small and the large trial drawing.
    static let trialPixels = (small: 64 * 64, large: 256 * 256)

    /// Throws a time-limit error when drawing `bytes` (SVG) at `pixels` pixels looks set to overrun the limit.
    /// `documentPixels` is the size the document declares, when it is drawn at another (a thumbnail).
    static func check(_ bytes: UnsafeRawBufferPointer, pixels: Int, documentPixels: Int? = nil) throws(VipsError) {
        guard pixels > 4 * trialPixels.large else { return }
        let limit = ImageEngine.Configuration.current.timeLimit.seconds(forPixels: pixels)
        guard limit.isFinite else { return }
        // A trial can only be slowed by the machine (another thread taking the core), never sped up. A slowed small
        // trial makes the cost per pixel look smaller than it is, which could let a drawing of minutes through
        // (it did, under a parallel test run, with a large trial of 128 x 128 only four times the bomb's small
        // one): so the small trial runs twice and the quicker run counts, the large trial has 16 times its pixels,
        // and when it did not take clearly longer a trial 4 times larger decides. A slowed large trial can only
        // refuse too much.
        let document = documentPixels ?? pixels
        let first = try trial(bytes, pixels: trialPixels.small, of: document)
        let again = try trial(bytes, pixels: trialPixels.small, of: document)
        let small = again.seconds < first.seconds ? again : first
        var large = try trial(bytes, pixels: trialPixels.large, of: document)
        if large.seconds < 2 * small.seconds, 16 * trialPixels.large < pixels {
            large = try trial(bytes, pixels: 4 * trialPixels.large, of: document)
        }
        let perPixel = max(0, large.seconds - small.seconds) / Double(max(1, large.pixels - small.pixels))
        let fixed = max(0, small.seconds - perPixel * Double(small.pixels))
        let estimate = fixed + perPixel * Double(pixels)
        guard estimate <= limit else {
            throw VipsError(
                operation: "draw SVG",
                message: "trial drawings of \(small.pixels) and \(large.pixels) pixels predict about "
                    + "\(Int(estimate)) s for \(pixels) pixels",
                timeLimit: limit)
        }
    }

    /// Draws the SVG (declaring `pixels` pixels) scaled to about `trialPixels` pixels and times it.
    private static func trial(
        _ bytes: UnsafeRawBufferPointer, pixels trialPixels: Int, of pixels: Int
    ) throws(VipsError) -> (seconds: Double, pixels: Int) {
        let scale = (Double(trialPixels) / Double(pixels)).squareRoot()
        let start = ContinuousClock.now
        guard
            let opened = cvips_load_svg_scaled(
                bytes.baseAddress, bytes.count, scale, Int32(ImageDecoder.failOn.rawValue))
        else { throw VipsRuntime.takeError("load SVG") }
        let drawn = try VipsImageHandle(owning: opened).materialised(forPixels: pixels)
        let elapsed = (ContinuousClock.now - start).components
        let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
        return (seconds, drawn.width * drawn.height)
    }
}
