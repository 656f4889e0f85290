import Foundation
import Kingfisher
import Testing

@Suite struct AnimatedImageTests {
    static let colors: [[UInt8]] = [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]]
    static let durations: [TimeInterval] = [0.1, 0.2, 0.3]

    @Test(arguments: [ImageFormat.GIF, .WebP])
    func framesAndDurationsSurviveEncodeAndDecode(format: ImageFormat) throws {
        // Given three solid frames shown 100, 200 and 300 ms, looping twice
        let animation = Fixtures.animation(colors: Self.colors, durations: Self.durations, loopCount: 2)
        #expect(animation.kf.imageFrameCount == 3)

        // When encoded and decoded
        let data = try animation.kf.encoded(as: format, compressionQuality: 1)
        let decoded = try KFCrossPlatformImage(decoding: data)
        // ... and once more through the decoded image
        let again = try KFCrossPlatformImage(decoding: decoded.kf.encoded(as: format, compressionQuality: 1))

        // Then frame count, timing, loop count, frame size and frame colours are kept
        for image in [decoded, again] {
            #expect(image.kf.imageFrameCount == 3)
            #expect(image.kf.frameDurations == Self.durations)
            #expect(abs(image.kf.duration - 0.6) < 1e-9)
            #expect(image.kf.loopCount == 2)
            #expect(image.pixelWidth == 16 && image.pixelHeight == 12)
            #expect(image.kf.size == CGSize(width: 16, height: 12))
            let frames = try #require(image.kf.images)
            #expect(frames.count == 3)
            for (frame, color) in zip(frames, Self.colors) {
                #expect(frame.kf.images == nil)
                let pixel = frame.pixel(8, 6)
                #expect(zip(pixel, color).allSatisfy { abs(Int($0) - Int($1)) <= 8 }, "\(pixel) vs \(color)")
            }
        }
        // The decoded image keeps its original bytes, as Kingfisher keeps GIF data
        #expect(decoded.kf.animatedImageData == data)
        let bands = decoded.hasAlpha ? 4 : 3
        #expect(decoded.kf.cost == 16 * 12 * bands * 3 + data.count)
    }

    @Test func gifRepresentationOfADecodedGIFIsItsOriginalData() throws {
        let data = try Fixtures.animation(colors: Self.colors, durations: Self.durations).kf.encoded(as: .GIF)
        let decoded = try KFCrossPlatformImage(decoding: data)
        #expect(decoded.kf.gifRepresentation() == data)
        #expect(decoded.kf.data(format: .GIF) == data)
    }

    @Test func onlyFirstFrameGivesAStillImage() throws {
        let data = try Fixtures.animation(colors: Self.colors, durations: Self.durations).kf.encoded(as: .GIF)
        let still = try #require(
            KingfisherWrapper<KFCrossPlatformImage>.image(data: data, options: .init(onlyFirstFrame: true)))
        // Kingfisher's imageFrameCount of the first frame alone is the frame count of its data
        #expect(still.kf.imageFrameCount == 3)
        #expect(still.kf.images == nil)
        #expect(still.kf.duration == 0)
        // As in Kingfisher, the first frame keeps the animation's bytes (a cache hit asking for every frame uses them)
        #expect(still.kf.animatedImageData == data)
        #expect(still.pixelHeight == 12)
        #expect(still.pixel(1, 1)[0] > 240)
    }

    @Test func durationOptionSpreadsEvenly() throws {
        let data = try Fixtures.animation(colors: Self.colors, durations: Self.durations).kf.encoded(as: .GIF)
        let image = try #require(
            KingfisherWrapper<KFCrossPlatformImage>.animatedImage(data: data, options: .init(duration: 3)))
        #expect(image.kf.frameDurations == [1, 1, 1])
    }

    @Test func tinyDelaysPlayAtATenthOfASecond() throws {
        let data = try Fixtures.animation(colors: Self.colors, durations: [0, 0.01, 0.05]).kf.encoded(as: .GIF)
        let image = try KFCrossPlatformImage(decoding: data)
        #expect(image.kf.frameDurations == [0.1, 0.1, 0.05])
    }

    @Test func stillFormatsTakeTheFirstFrame() throws {
        let animation = Fixtures.animation(colors: Self.colors, durations: Self.durations)
        for format in [ImageFormat.PNG, .JPEG] {
            let still = try KFCrossPlatformImage(decoding: animation.kf.encoded(as: format))
            // Never animated data: no frame count, as Kingfisher's
            #expect(still.pixelWidth == 16 && still.pixelHeight == 12 && still.kf.imageFrameCount == nil)
            #expect(still.pixel(8, 6)[0] > 240)
        }
    }

    @Test func framesOfDifferentSizesAreRefused() {
        let frames = [Fixtures.gradient(width: 4, height: 4), Fixtures.gradient(width: 5, height: 4)]
        #expect(KFCrossPlatformImage.animatedImage(with: frames, duration: 1) == nil)
        #expect(KFCrossPlatformImage.animatedImage(with: [], duration: 1) == nil)
        #expect(throws: KingfisherError.self) { try KFCrossPlatformImage(frames: frames, frameDurations: [0.1]) }
        let ok = KFCrossPlatformImage.animatedImage(with: [frames[0], frames[0]], duration: 1)
        #expect(ok?.kf.frameDurations == [0.5, 0.5])
    }
}
