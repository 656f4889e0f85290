import Synchronization

extension ImageEngine {
    private static let frameLimit = Atomic<Int>(3_000)

    /// The most frames an animated image (GIF, WebP) may declare. Longer animations are rejected from their header
    /// with ``KingfisherError/ProcessorErrorReason/frameLimitExceeded(frames:limit:)`` before any frame is decoded;
    /// their first frame alone (`onlyFirstFrame`, or a downsampling processor) still decodes. The pixels of all
    /// frames together count against ``maximumPixelCount`` as well. 3,000 frames by default (two minutes at
    /// 25 frames a second); values below 1 are treated as 1.
    public static var maximumFrameCount: Int {
        get { frameLimit.load(ordering: .relaxed) }
        set { frameLimit.store(max(1, newValue), ordering: .relaxed) }
    }
}
