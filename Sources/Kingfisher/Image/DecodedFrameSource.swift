import Foundation

/// The frame source of an animated image decoded from data (Kingfisher's `CGImageFrameSource`): its frames are the
/// image's own, already in memory; `maxSize` shrinks a copy.
struct DecodedFrameSource: ImageFrameSource {
    let data: Data?
    /// The decoded frames, stacked (the image's storage: no second copy of the pixels).
    let storage: VipsImageHandle
    let frameDurations: [TimeInterval]
    let scale: CGFloat

    var frameCount: Int { frameDurations.count }

    func frame(at index: Int, maxSize: CGSize?) -> KFCrossPlatformImage? {
        guard frameDurations.indices.contains(index),
            let pixels = try? storage.frame(index).materialised()
        else { return nil }
        let frame = KFCrossPlatformImage(storage: pixels, scale: scale, animation: nil, animatedImageData: nil)
        // A limit of zero on either side does not limit, as Kingfisher's.
        guard let maxSize, maxSize.width > 0, maxSize.height > 0 else { return frame }
        return (try? frame.withScale(1).downsampling(toFit: maxSize).withScale(scale)) ?? frame
    }

    func duration(at index: Int) -> TimeInterval {
        frameDurations.indices.contains(index) ? frameDurations[index] : 0
    }
}
