import Foundation
import Kingfisher
import KingfisherLocking
import XCTest

/// A frame source of one's own drives the frames of `animatedImage(source:options:baseImage:)`, as in
/// Kingfisher 8.11; `GIFAnimatedImage` reads one.
final class ImageFrameSourceTests: XCTestCase {
    /// Solid-colour frames with their durations, counting the frames read.
    private final class ColourFrames: ImageFrameSource {
        let colours: [[UInt8]]
        let durations: [TimeInterval]
        let sizes: [(Int, Int)]
        let data: Data?
        private let reads = Locked(0)

        init(colours: [[UInt8]], durations: [TimeInterval], sizes: [(Int, Int)]? = nil, data: Data? = nil) {
            self.colours = colours
            self.durations = durations
            self.sizes = sizes ?? Array(repeating: (12, 8), count: colours.count)
            self.data = data
        }

        var frameReads: Int { reads.withLock { $0 } }
        var frameCount: Int { colours.count }

        func frame(at index: Int, maxSize: CGSize?) -> KFCrossPlatformImage? {
            guard colours.indices.contains(index) else { return nil }
            reads.withLock { $0 += 1 }
            return Fixtures.solid(colours[index], width: sizes[index].0, height: sizes[index].1)
        }

        func duration(at index: Int) -> TimeInterval {
            durations.indices.contains(index) ? durations[index] : 0
        }
    }

    private let red: [UInt8] = [255, 0, 0, 255]
    private let green: [UInt8] = [0, 255, 0, 255]
    private let blue: [UInt8] = [0, 0, 255, 255]

    func testTheSourcesFramesAndDurationsMakeTheAnimation() throws {
        let source = ColourFrames(colours: [red, green, blue], durations: [0.2, 0.3, 0.5], data: Data([1, 2, 3]))
        let image = try XCTUnwrap(
            KingfisherWrapper<KFCrossPlatformImage>.animatedImage(source: source, options: ImageCreatingOptions()))
        XCTAssertEqual(source.frameReads, 3)
        XCTAssertEqual(image.kf.imageFrameCount, 3)
        XCTAssertEqual(image.kf.frameDurations, [0.2, 0.3, 0.5])
        XCTAssertEqual(image.kf.duration, 1.0, accuracy: 1e-9)
        XCTAssertEqual(image.kf.images?.map { $0.pixel(6, 4) }, [red, green, blue])
        XCTAssertTrue(image.kf.frameSource as? ColourFrames === source)
        XCTAssertEqual(image.kf.animatedImageData, Data([1, 2, 3]))
        // The frames are real: they survive a GIF round trip
        let gif = try image.kf.encoded(as: .GIF)
        let decoded = try KFCrossPlatformImage(decoding: gif)
        XCTAssertEqual(decoded.kf.images?.map { $0.pixel(6, 4)[0...2] }, [red, green, blue].map { $0[0...2] })
    }

    func testOptionsScaleTheFramesAndSpreadADuration() throws {
        let source = ColourFrames(colours: [red, green], durations: [0.2, 0.3])
        let image = try XCTUnwrap(
            KingfisherWrapper<KFCrossPlatformImage>.animatedImage(
                source: source, options: ImageCreatingOptions(scale: 2, duration: 4)))
        XCTAssertEqual(image.kf.size, CGSize(width: 6, height: 4))
        XCTAssertEqual(image.kf.frameDurations, [2, 2])
    }

    func testABaseImageReplacesTheFirstFrameAndOtherSizesAreFitted() throws {
        let source = ColourFrames(colours: [red, green], durations: [0.1, 0.1], sizes: [(12, 8), (24, 16)])
        let base = Fixtures.solid(blue, width: 12, height: 8)
        let image = try XCTUnwrap(
            KingfisherWrapper<KFCrossPlatformImage>.animatedImage(
                source: source, options: ImageCreatingOptions(), baseImage: base))
        let frames = try XCTUnwrap(image.kf.images)
        XCTAssertEqual(frames.map(\.pixelWidth), [12, 12])
        XCTAssertEqual(frames[0].pixel(6, 4), blue)
        XCTAssertEqual(frames[1].pixel(6, 4), green)
    }

    func testOneFrameLastsForeverAndOnlyFirstFrameGivesAStill() throws {
        let single = try XCTUnwrap(
            KingfisherWrapper<KFCrossPlatformImage>.animatedImage(
                source: ColourFrames(colours: [red], durations: [0.4]), options: ImageCreatingOptions()))
        XCTAssertEqual(single.kf.images?.count, 1)
        XCTAssertEqual(single.kf.duration, .infinity)

        let source = ColourFrames(colours: [red, green, blue], durations: [0.1, 0.1, 0.1])
        let first = try XCTUnwrap(
            KingfisherWrapper<KFCrossPlatformImage>.animatedImage(
                source: source, options: ImageCreatingOptions(onlyFirstFrame: true)))
        XCTAssertNil(first.kf.images)
        XCTAssertEqual(first.kf.imageFrameCount, 3)
        XCTAssertEqual(first.pixel(0, 0), red)
        XCTAssertEqual(source.frameReads, 1, "only the first frame is read")
    }

    func testAMissingFrameOrNoFramesGiveNil() {
        struct Broken: ImageFrameSource {
            var data: Data? { nil }
            var frameCount: Int { 2 }
            func frame(at index: Int, maxSize: CGSize?) -> KFCrossPlatformImage? {
                index == 0 ? Fixtures.solid([1, 2, 3, 255], width: 4, height: 4) : nil
            }
            func duration(at index: Int) -> TimeInterval { 0.1 }
        }
        XCTAssertNil(KingfisherWrapper<KFCrossPlatformImage>.animatedImage(source: Broken(), options: .init()))
        XCTAssertNil(GIFAnimatedImage(from: Broken(), options: .init()))
        let empty = ColourFrames(colours: [], durations: [])
        XCTAssertNil(KingfisherWrapper<KFCrossPlatformImage>.animatedImage(source: empty, options: .init()))
    }

    func testDecodedAnimatedDataHasAFrameSourceOverItsFrames() throws {
        let gif = try Fixtures.animation(
            colors: [red, green, blue], durations: [0.1, 0.2, 0.3], width: 40, height: 20
        )
        .kf.encoded(as: .GIF)
        let image = try XCTUnwrap(KingfisherWrapper<KFCrossPlatformImage>.animatedImage(data: gif, options: .init()))
        let source = try XCTUnwrap(image.kf.frameSource)
        XCTAssertEqual(source.frameCount, 3)
        XCTAssertEqual(source.data, gif)
        XCTAssertEqual(source.duration(at: 1), 0.2, accuracy: 0.001)
        XCTAssertEqual(source.frame(at: 2)?.pixel(20, 10)[0...2], blue[0...2])
        XCTAssertNil(source.frame(at: 3))
        let small = try XCTUnwrap(source.frame(at: 0, maxSize: CGSize(width: 10, height: 10)))
        XCTAssertEqual(small.pixelWidth, 10)
        XCTAssertEqual(small.pixelHeight, 5)
        XCTAssertEqual(source.frame(at: 0, maxSize: CGSize(width: 0, height: 10))?.pixelWidth, 40, "0 does not limit")
        XCTAssertNil(KFCrossPlatformImage(data: Fixtures.png())?.kf.frameSource, "a still image has none")
    }

    func testGIFAnimatedImageReadsEveryFrameAndKingfishersDurationRule() throws {
        let read = try XCTUnwrap(
            GIFAnimatedImage(
                from: ColourFrames(colours: [red, green], durations: [0.25, 0]), options: ImageCreatingOptions()))
        XCTAssertEqual(read.images.count, 2)
        XCTAssertEqual(read.duration, 0.35, accuracy: 1e-9, "a frame without a duration plays for 0.1 s")
        XCTAssertEqual(GIFAnimatedImage.getFrameDuration(from: ["UnclampedDelayTime": 0.04, "DelayTime": 0.5]), 0.04)
        XCTAssertEqual(GIFAnimatedImage.getFrameDuration(from: ["DelayTime": 0.5]), 0.5)
        XCTAssertEqual(GIFAnimatedImage.getFrameDuration(from: ["DelayTime": 0.01]), 0.1)
        XCTAssertEqual(GIFAnimatedImage.getFrameDuration(from: nil), 0.1)
    }
}
