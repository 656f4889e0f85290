import Foundation
import Kingfisher
import XCTest

/// Kingfisher 8.11's frame bookkeeping: a still image has no frame count and no frames; a GIF made through
/// `animatedImage(data:options:)` is an animation even with one frame, which lasts forever.
final class ImageFrameCountTests: XCTestCase {
    private let red: [UInt8] = [255, 0, 0, 255]
    private let blue: [UInt8] = [0, 0, 255, 255]

    func testAStillImageHasNoFrameCountAndNoFrames() throws {
        for data in [Fixtures.png(), Fixtures.jpeg()] {
            let image = try XCTUnwrap(
                KingfisherWrapper<KFCrossPlatformImage>.image(data: data, options: ImageCreatingOptions()))
            XCTAssertNil(image.kf.imageFrameCount, "\(data.kf.imageFormat)")
            XCTAssertNil(image.kf.images)
            XCTAssertEqual(image.kf.duration, 0)
        }
    }

    func testAOneFrameGIFIsAnAnimationOfOneFrameThatLastsForever() throws {
        let gif = try Fixtures.solid(red, width: 10, height: 8).kf.encoded(as: .GIF)
        let image = try XCTUnwrap(
            KingfisherWrapper<KFCrossPlatformImage>.animatedImage(data: gif, options: ImageCreatingOptions()))
        XCTAssertEqual(image.kf.imageFrameCount, 1)
        XCTAssertEqual(image.kf.images?.count, 1)
        XCTAssertEqual(image.kf.duration, .infinity)
        XCTAssertEqual(image.kf.gifRepresentation(), gif, "the original GIF is kept")
        XCTAssertEqual(image.kf.images?.first?.pixel(5, 4), red)
        // Kingfisher's image(data:options:) sends GIF data through animatedImage too
        let viaImage = try XCTUnwrap(
            KingfisherWrapper<KFCrossPlatformImage>.image(data: gif, options: ImageCreatingOptions()))
        XCTAssertEqual(viaImage.kf.imageFrameCount, 1)
    }

    func testAnAnimatedGIFHasItsFramesAndTheirSummedDuration() throws {
        let gif = try Fixtures.animation(colors: [red, blue], durations: [0.2, 0.3]).kf.encoded(as: .GIF)
        let image = try XCTUnwrap(
            KingfisherWrapper<KFCrossPlatformImage>.animatedImage(data: gif, options: ImageCreatingOptions()))
        XCTAssertEqual(image.kf.imageFrameCount, 2)
        XCTAssertEqual(image.kf.images?.count, 2)
        XCTAssertEqual(image.kf.duration, 0.5, accuracy: 0.001)
    }

    func testTheFirstFrameAloneHasNoFramesButKnowsTheDatasFrameCount() throws {
        let gif = try Fixtures.animation(colors: [red, blue, red], durations: [0.1, 0.1, 0.1]).kf.encoded(as: .GIF)
        let image = try XCTUnwrap(
            KingfisherWrapper<KFCrossPlatformImage>.animatedImage(
                data: gif, options: ImageCreatingOptions(preloadAll: true, onlyFirstFrame: true)))
        XCTAssertNil(image.kf.images)
        XCTAssertEqual(image.kf.imageFrameCount, 3)
    }
}
