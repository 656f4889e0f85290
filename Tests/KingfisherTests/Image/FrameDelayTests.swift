import Foundation
import Testing

@testable import Kingfisher

/// One rule for frame delays, wherever frames are decoded or played.
@Suite struct FrameDelayTests {
    @Test func delaysOfTenMillisecondsOrLessShowForAHundred() {
        #expect(FrameDelay.playable(0) == 0.1)
        #expect(FrameDelay.playable(0.01) == 0.1)
        #expect(FrameDelay.playable(-1) == 0.1)
        #expect(FrameDelay.playable(.infinity) == 0.1)
        #expect(FrameDelay.playable(.nan) == 0.1)
        #expect(FrameDelay.playable(0.011) == 0.011)
        #expect(FrameDelay.playable(0.015) == 0.015)
        #expect(FrameDelay.playable(milliseconds: 10) == 0.1)
        #expect(FrameDelay.playable(milliseconds: 11) == 0.011)
    }

    @Test func theDecoderAndKingfishersGIFInfoFollowIt() throws {
        let animation = Fixtures.animation(
            colors: [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]], durations: [0, 0.015, 0.2], width: 2,
            height: 2)
        let decoded = try KFCrossPlatformImage(decoding: try animation.kf.encoded(as: .GIF))
        let durations = decoded.kf.frameDurations.map { ($0 * 1000).rounded() }
        // GIF stores hundredths of a second: 15 ms is written as 10 ms (or 20 ms) by the encoder.
        #expect(durations.first == 100)
        #expect(durations.last == 200)
        #expect(durations[1] == 100 || durations[1] == 20)
        #expect(GIFAnimatedImage.getFrameDuration(from: ["DelayTime": 0.015]) == 0.015)
        #expect(GIFAnimatedImage.getFrameDuration(from: ["DelayTime": 0.0]) == 0.1)
    }
}
