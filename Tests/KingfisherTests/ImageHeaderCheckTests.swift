import Foundation
import Testing

@testable import Kingfisher

/// The check a prefetch that keeps original data runs instead of a decode.
struct ImageHeaderCheckTests {
    private func error(_ data: Data, allFrames: Bool = true) -> KingfisherError? {
        guard
            case .failure(let error) = ImageHeaderCheck.check(
                data, allFrames: allFrames, processor: DefaultImageProcessor.default)
        else { return nil }
        return error
    }

    @Test func imagesOfEveryDecodedFormatPass() throws {
        let image = Fixtures.gradient(width: 40, height: 30)
        for format in [ImageFormat.PNG, .JPEG, .GIF, .WebP] {
            let data = try image.kf.encoded(as: format)
            #expect(error(data) == nil, "\(format)")
        }
        #expect(error(Fixtures.progressiveJPEG()) == nil)
    }

    @Test func bytesThatAreNotAnImageFailAsADecodeWouldWithThePreciseReason() throws {
        // Empty, unknown, and an image format's signature with a header its loader cannot read
        let cases: [(Data, KingfisherError.ProcessorErrorReason)] = [
            (Data(), .emptyImageData),
            (garbageBytes, .unsupportedImageFormat(.unknown)),
        ]
        for (data, expected) in cases {
            let reason = try #require(error(data)?.underlyingReason, "\(expected)")
            #expect(reason.errorCode == expected.errorCode)
        }
        let brokenPNG = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + garbageBytes
        let failure = try #require(error(brokenPNG))
        guard case .imageDecodingFailed(.PNG, _) = try #require(failure.underlyingReason) else {
            Issue.record("expected a PNG decoding failure, got \(failure)")
            return
        }
        // Reported as the asked-for processor failing on data that is not an image, as a decode reports it
        guard case .processorError(.processingFailed(let processor, .data(let data))) = failure else {
            Issue.record("expected processingFailed, got \(failure)")
            return
        }
        #expect(processor.identifier == DefaultImageProcessor.default.identifier)
        #expect(data == brokenPNG)
    }

    @Test func aHeaderOverThePixelLimitIsRefusedWithItsOwnReason() throws {
        let bomb = Fixtures.pngHeaderOnly(width: 100_000, height: 100_000)
        guard case .processorError(.pixelLimitExceeded(100_000, 100_000, ImageEngine.maximumPixelCount)) = error(bomb)
        else {
            Issue.record("expected pixelLimitExceeded, got \(String(describing: error(bomb)))")
            return
        }
    }

    @Test func anAnimationOverTheFrameLimitIsRefusedUnlessOnlyItsFirstFrameIsWanted() throws {
        let gif = try LongAnimationTests.tinyFramesGIF(count: ImageEngine.maximumFrameCount + 1)
        guard case .processorError(.frameLimitExceeded(let frames, _)) = error(gif) else {
            Issue.record("expected frameLimitExceeded, got \(String(describing: error(gif)))")
            return
        }
        #expect(frames == ImageEngine.maximumFrameCount + 1)
        #expect(error(gif, allFrames: false) == nil)
    }
}
