import CVips
import Foundation

extension KFCrossPlatformImage {
    /// Applies `transform` to the image, or to every frame of an animated image, and reassembles the frames
    /// with their timing and loop count. The result holds no original data: its pixels are new.
    func mappingFrames(
        scale newScale: CGFloat? = nil,
        _ transform: (VipsImageHandle) throws(VipsError) -> VipsImageHandle
    ) throws(VipsError) -> KFCrossPlatformImage {
        try VipsRuntime.start()
        guard !isEmptyImage else { throw Self.emptyImageError }
        let scale = newScale ?? self.scale
        let sourcePixels = storage.width * storage.height
        guard let animation else {
            let result = try transform(storage).materialised(forPixels: sourcePixels)
            return KFCrossPlatformImage(storage: result, scale: scale, animation: nil, animatedImageData: nil)
        }
        // Each frame is computed as soon as it is transformed, so only one frame's pipeline (and whatever its
        // operations allocate: a blur's compiled mask is ~300 KB) is alive at a time, and the join reads memory.
        // One deadline covers every frame, sized by the larger of the source and the result.
        var frames: [VipsImageHandle] = []
        frames.reserveCapacity(animation.frameCount)
        var deadline: (at: Int, seconds: TimeInterval)?
        for index in 0..<animation.frameCount {
            let frame = try transform(storage.frame(index))
            if deadline == nil {
                let resultPixels = frame.width * frame.height * animation.frameCount
                if let run = ProcessingRun.current {
                    // Inside a workers' job: its deadline, from its start, covers every frame.
                    deadline = run.deadline(
                        coveringPixels: max(sourcePixels, resultPixels), frames: animation.frameCount)
                } else {
                    let seconds = ImageEngine.Configuration.current.timeLimit.seconds(
                        forPixels: max(sourcePixels, resultPixels), frames: animation.frameCount)
                    deadline = (VipsImageHandle.deadline(after: seconds), seconds)
                }
            }
            frames.append(try frame.materialised(deadline: deadline!.at, seconds: deadline!.seconds))
        }
        if frames.contains(where: \.hasAlpha) {
            frames = try frames.map { frame throws(VipsError) in try frame.withAlpha() }
        }
        var pointers: [UnsafeMutablePointer<VipsImage>?] = frames.map(\.pointer)
        let joined = try withExtendedLifetime(frames) { () throws(VipsError) -> VipsImageHandle in
            var output: UnsafeMutablePointer<VipsImage>?
            guard cvips_join_vertically(&pointers, Int32(pointers.count), &output) == 0, let output else {
                throw VipsRuntime.takeError("arrayjoin")
            }
            return try VipsImageHandle(owning: output).materialised(
                deadline: deadline?.at ?? 0, seconds: deadline?.seconds ?? .infinity)
        }
        // `joined` is new and unshared, so its metadata may still be written.
        joined.setInt("page-height", frames[0].height)
        joined.setIntArray("delay", storage.intArray("delay") ?? animation.frameDurations.map { Int($0 * 1000) })
        joined.setInt("loop", animation.loopCount)
        return KFCrossPlatformImage(storage: joined, scale: scale, animation: animation, animatedImageData: nil)
    }

    /// The same pixels (and frames) at another scale.
    func withScale(_ scale: CGFloat) -> KFCrossPlatformImage {
        guard scale != self.scale, scale.isFinite, scale > 0 else { return self }
        return KFCrossPlatformImage(
            storage: storage, scale: scale, animation: animation, animatedImageData: animatedImageData,
            sourceFrameCount: sourceFrameCount, frameSource: frameSource, isEmptyImage: isEmptyImage)
    }
}
