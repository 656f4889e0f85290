import Foundation
import Kingfisher
import Testing

/// Animations with thousands of frames: processing cost must grow with the frame count, not faster.
@Suite(.serialized) struct LongAnimationTests {
    /// A GIF of `count` 1x1 frames cycling through red, green and blue, 20 ms each.
    static func tinyFramesGIF(count: Int) throws -> Data {
        let colors: [[UInt8]] = [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]]
        let frames = (0..<count).map { colors[$0 % 3] }
        let animation = Fixtures.animation(
            colors: frames, durations: Array(repeating: 0.02, count: count), width: 1, height: 1)
        return try animation.kf.encoded(as: .GIF)
    }

    @Test(arguments: [
        ResizingImageProcessor(referenceSize: CGSize(width: 64, height: 64)) as any ImageProcessor,
        RoundCornerImageProcessor(cornerRadius: 8),
        BlackWhiteProcessor(),
        BlurImageProcessor(blurRadius: 2),
    ])
    func twoThousandFramesProcessInLinearTime(processor: any ImageProcessor) throws {
        // Given a 2,000-frame GIF of 1x1 frames (43 s through a 64x64 resize before frames were taken in place)
        let gif = try KFCrossPlatformImage(decoding: Self.tinyFramesGIF(count: 2_000))
        #expect(gif.kf.imageFrameCount == 2_000)
        // When processed
        let start = ContinuousClock.now
        let output = try #require(processor.run(gif), "\(processor.identifier)")
        let elapsed = ContinuousClock.now - start
        // Then every frame is kept in order, and the run takes seconds, not minutes
        #expect(output.kf.imageFrameCount == 2_000)
        #expect(output.kf.frameDurations.count == 2_000)
        let frames = try #require(output.kf.images)
        let last = frames[1_999].pixel(frames[1_999].pixelWidth / 2, frames[1_999].pixelHeight / 2)
        if !(processor is BlackWhiteProcessor) {
            #expect(last[1] > 200 && last[0] < 50 && last[2] < 50, "frame 1,999 (1,999 % 3 == 1) is green: \(last)")
        }
        // Generous for a loaded 2-core CI machine and a debug build; before the fix each took 37-111 s.
        #expect(elapsed < .seconds(25), "\(processor.identifier): \(elapsed)")
    }

    @Test func framesOverTheFrameLimitAreRefusedFromTheHeader() throws {
        // Given a GIF with one frame more than the default limit
        let count = ImageEngine.maximumFrameCount + 1
        let data = try Self.tinyFramesGIF(count: count)
        // When decoded, then it is refused before its pixels are decoded
        #expect {
            try KFCrossPlatformImage(decoding: data)
        } throws: { error in
            guard case .processorError(.frameLimitExceeded(let frames, let limit)) = error as? KingfisherError else {
                return false
            }
            return frames == count && limit == ImageEngine.maximumFrameCount
        }
        // Its first frame alone still decodes
        let first = try KFCrossPlatformImage(decoding: data, options: ImageCreatingOptions(onlyFirstFrame: true))
        #expect(first.kf.images == nil && first.pixelWidth > 0)
    }
}
