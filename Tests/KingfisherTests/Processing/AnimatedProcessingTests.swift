import Foundation
import Kingfisher
import Testing

@Suite struct AnimatedProcessingTests {
    static let colors: [[UInt8]] = [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]]

    private func animatedGIF() throws -> KFCrossPlatformImage {
        let animation = Fixtures.animation(
            colors: Self.colors, durations: [0.1, 0.2, 0.3], width: 40, height: 30, loopCount: 3)
        return try KFCrossPlatformImage(decoding: animation.kf.encoded(as: .GIF))
    }

    @Test(arguments: [
        ResizingImageProcessor(referenceSize: CGSize(width: 20, height: 15)) as any ImageProcessor,
        CroppingImageProcessor(size: CGSize(width: 10, height: 10)),
        RoundCornerImageProcessor(cornerRadius: 5),
        BorderImageProcessor(border: Border(color: .white, lineWidth: 2)),
        BlurImageProcessor(blurRadius: 2),
        OverlayImageProcessor(overlay: .white, fraction: 0.9),
        TintImageProcessor(tint: KFCrossPlatformColor(red: 1, green: 1, blue: 1, alpha: 0.1)),
        ColorControlsProcessor(brightness: 0, contrast: 1, saturation: 0.5, inputEV: 0),
        BlackWhiteProcessor(),
        BlendImageProcessor(blendMode: .normal, alpha: 0.9, backgroundColor: .black),
        DownsamplingImageProcessor(size: CGSize(width: 20, height: 20)),
    ])
    func everyProcessorKeepsEveryFrame(processor: any ImageProcessor) throws {
        // Given a 3-frame GIF (red, green, blue; 100/200/300 ms; 3 loops)
        let gif = try animatedGIF()
        // When processed
        let output = try #require(processor.run(gif), "\(processor.identifier)")
        // Then frames, timing and loop count are kept, and each frame was processed on its own
        #expect(output.kf.imageFrameCount == 3, "\(processor.identifier)")
        #expect(output.kf.frameDurations == [0.1, 0.2, 0.3])
        #expect(output.kf.loopCount == 3)
        let frames = try #require(output.kf.images)
        let centres = frames.map { $0.pixel($0.pixelWidth / 2, $0.pixelHeight / 2) }
        let dominant = centres.map { pixel in (0..<3).max { pixel[$0] < pixel[$1] }! }
        if !(processor is BlackWhiteProcessor) {
            #expect(dominant == [0, 1, 2], "\(processor.identifier): \(centres)")
        }
        // The processed animation encodes as an animation, not the original bytes
        #expect(output.kf.animatedImageData == nil)
        let reencoded = try #require(output.kf.gifRepresentation())
        let decoded = try KFCrossPlatformImage(decoding: reencoded)
        #expect(decoded.kf.imageFrameCount == 3)
        #expect(decoded.pixelWidth == output.pixelWidth && decoded.pixelHeight == output.pixelHeight)
    }

    @Test func downsamplingAnimatedDataGivesTheFirstFrame() throws {
        let data = try Fixtures.animation(colors: Self.colors, durations: [0.1, 0.2, 0.3], width: 40, height: 30).kf
            .encoded(as: .GIF)
        let output = try #require(
            DownsamplingImageProcessor(size: CGSize(width: 20, height: 20)).process(
                item: .data(data), options: processingOptions()))
        #expect(output.pixelWidth == 20 && output.pixelHeight == 15 && output.kf.images == nil)
    }

    @Test func copyKingfisherStatePassesTheOriginalAnimationOn() throws {
        let gif = try animatedGIF()
        let still = Fixtures.gradient(width: 4, height: 4)
        #expect(still.kf.animatedImageData == nil)
        gif.kf.copyKingfisherState(to: still)
        #expect(still.kf.animatedImageData == gif.kf.animatedImageData)
        #expect(still.kf.gifRepresentation() == gif.kf.animatedImageData)
    }
}
