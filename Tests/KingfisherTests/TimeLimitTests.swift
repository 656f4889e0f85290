import CVips
import Foundation
import Testing

@testable import Kingfisher

/// Decoding and processing stop at ``ImageEngine/timeLimit`` with a `KingfisherError`, and SVG that would draw
/// for minutes is refused from trial drawings.
@Suite(.serialized) struct TimeLimitTests {
    /// 202 bytes that librsvg would draw for many minutes at 8,000 x 8,000 pixels (200 octaves of noise).
    static let turbulenceSVG = Data(
        ("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"8000\" height=\"8000\"><filter id=\"f\">"
            + "<feTurbulence baseFrequency=\"0.01\" numOctaves=\"200\"/></filter>"
            + "<rect width=\"100%\" height=\"100%\" filter=\"url(#f)\"/></svg>").utf8)

    @Test func svgFilterBombEndsWithTheTimeLimitError() throws {
        try #require(ImageEngine.canDecode(.SVG))
        // Given the default limit (2 s + 2 s per megapixel: 130 s for 64 megapixels)
        let start = ContinuousClock.now
        // When the SVG is decoded at its declared size
        #expect {
            try KFCrossPlatformImage(decoding: Self.turbulenceSVG)
        } throws: { error in
            // Then it is refused with the time-limit error, from trial drawings, long before the limit
            guard case .processorError(.timeLimitExceeded(let seconds)) = error as? KingfisherError else {
                return false
            }
            return seconds == ImageEngine.timeLimit.seconds(forPixels: 8000 * 8000)
        }
        #expect(ContinuousClock.now - start < .seconds(20))
    }

    @Test func svgIsDrawnAtTheTargetSizeWhenDownsampling() throws {
        try #require(ImageEngine.canDecode(.SVG))
        let start = ContinuousClock.now
        let processor = DownsamplingImageProcessor(size: CGSize(width: 128, height: 128))
        let image = try #require(processor.process(item: .data(Self.turbulenceSVG), options: processingOptions()))
        #expect(image.pixelWidth == 128 && image.pixelHeight == 128)
        #expect(ContinuousClock.now - start < .seconds(20))
    }

    @Test func svgBombDrawnLargeWhenDownsamplingEndsWithTheLimitOfTheDrawnSize() throws {
        try #require(ImageEngine.canDecode(.SVG))
        // Given the bomb asked for at 4,000 x 4,000 (minutes of drawing; the limit gives 16 megapixels 34 s)
        let processor = DownsamplingImageProcessor(size: CGSize(width: 4000, height: 4000))
        let start = ContinuousClock.now
        // When it is downsampled, it is refused from the trial drawings with the limit of the size it would be drawn
        #expect {
            _ = try ImageDecoder.thumbnail(Self.turbulenceSVG, maxPixelSize: 4000, scale: 1)
        } throws: { error in
            guard case .processorError(.timeLimitExceeded(let seconds)) = error as? KingfisherError else {
                return false
            }
            return seconds == ImageEngine.timeLimit.seconds(forPixels: 4000 * 4000)
        }
        // and through the processing stage, which reports that refusal, not what a full-size decode would say
        let outcome = ImageProcessing.image(
            from: Self.turbulenceSVG, options: KingfisherParsedOptionsInfo([.processor(processor)]))
        guard case .failure(.processorError(.timeLimitExceeded(let seconds))) = outcome else {
            Issue.record("expected timeLimitExceeded, got \(outcome)")
            return
        }
        #expect(seconds == ImageEngine.timeLimit.seconds(forPixels: 4000 * 4000))
        #expect(ContinuousClock.now - start < .seconds(40))  // a safety net: before, this ran past 400 s
    }

    @Test func ordinarySVGStillDecodesAtFullSize() throws {
        try #require(ImageEngine.canDecode(.SVG))
        let svg = Data(
            ("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1200\" height=\"900\">"
                + "<rect width=\"100%\" height=\"100%\" fill=\"#336699\"/><circle cx=\"600\" cy=\"450\" r=\"300\" "
                + "fill=\"white\"/></svg>").utf8)
        let image = try KFCrossPlatformImage(decoding: svg)
        #expect(image.pixelWidth == 1200 && image.pixelHeight == 900)
        #expect(image.pixel(600, 450).prefix(3) == [255, 255, 255])
    }

    @Test func computingStopsBetweenStripsAtTheDeadline() throws {
        // Given a lazy blur of a 3,000 x 3,000 image: seconds of work, far more than 20 ms
        let source = try VipsImageHandle.solid(width: 3000, height: 3000, color: .white)
        let blurred = try source.apply("gaussblur") { cvips_gaussblur($0, $1, 30) }
        let start = ContinuousClock.now
        // When it is computed with a 20 ms limit
        #expect {
            _ = try blurred.materialised(limit: ImageEngine.TimeLimit(minimum: 0.02, perMegapixel: 0))
        } throws: { error in
            // Then it stops part-way with an error that carries the limit
            guard let error = error as? VipsError else { return false }
            return error.timeLimit == 0.02 && error.message.contains("time limit exceeded at row")
        }
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test func timeLimitErrorSaysWhatStopped() {
        let error = KingfisherError.processorError(reason: .timeLimitExceeded(seconds: 4))
        #expect(error.errorCode == 4009)
        #expect(error.errorDescription?.contains("limit of 4.0 s (ImageEngine.timeLimit)") == true)
    }

    /// A processor whose work stops at a (here: 20 ms) time limit, through the same helper as the built-in ones.
    struct SlowBlurProcessor: ImageProcessor {
        let identifier = "test.slow-blur"

        func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
            processImage(item, options) { image throws(VipsError) in
                let big = try VipsImageHandle.solid(width: 3000, height: 3000, color: .white)
                let blurred = try big.apply("gaussblur") { cvips_gaussblur($0, $1, 30) }
                _ = try blurred.materialised(limit: ImageEngine.TimeLimit(minimum: 0.02, perMegapixel: 0))
                return image
            }
        }
    }

    @Test func aProcessorStoppedByTheTimeLimitReportsIt() throws {
        // Given data that decodes, and a processor that runs out of time
        let options = KingfisherParsedOptionsInfo([.processor(SlowBlurProcessor())])
        // When the pipeline's processing step runs it
        let result = ImageProcessing.image(from: Fixtures.png(), options: options)
        // Then the failure says why, not just that the processor gave nothing
        guard case .failure(.processorError(.timeLimitExceeded(let seconds))) = result else {
            Issue.record("expected timeLimitExceeded, got \(result)")
            return
        }
        #expect(seconds == 0.02)
        // And an ordinary failure is still processingFailed
        let cropNothing = KingfisherParsedOptionsInfo([.processor(CroppingImageProcessor(size: .zero))])
        guard
            case .failure(.processorError(.processingFailed)) = ImageProcessing.image(
                from: Fixtures.png(), options: cropNothing)
        else {
            Issue.record("expected processingFailed")
            return
        }
    }

    @Test func animationsGetTimeForEveryFrame() {
        let limit = ImageEngine.TimeLimit()
        #expect(limit.seconds(forPixels: 1_000_000) == 4)
        // 2,000 frames of 1x1 pixels: a pipeline each, however small (under load in a debug build they took over
        // the 2 s that their pixels alone would get)
        #expect(abs(limit.seconds(forPixels: 2_000, frames: 2_000) - 22.004) < 1e-9)
        #expect(ImageEngine.TimeLimit.unlimited.seconds(forPixels: 1, frames: 10) == .infinity)
    }
}
