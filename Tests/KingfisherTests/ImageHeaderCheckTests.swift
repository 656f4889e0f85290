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

    /// JPEG and PNG headers are read in Swift (libvips is not started for them): what that reading gives must be what
    /// libvips' loader reports for the same bytes.
    @Test func jpegAndPNGHeadersReadInSwiftAgreeWithLibvips() throws {
        let cases: [(String, Data)] = [
            ("PNG", Fixtures.png(width: 37, height: 21)), ("grey PNG", Fixtures.greyPNG()),
            ("palette PNG", Fixtures.palettePNG(width: 19, height: 7)),
            ("16-bit PNG", Fixtures.png16(rgb: Array(repeating: 0x1234, count: 16 * 16 * 3))),
            ("PNG with a profile", Fixtures.srgbProfilePNG(rgb: Array(repeating: 90, count: 8 * 8 * 3))),
            ("JPEG", Fixtures.jpeg(width: 65, height: 33)), ("progressive JPEG", Fixtures.progressiveJPEG()),
            ("CMYK JPEG", Fixtures.cmykJPEG(cmyk: Array(repeating: 40, count: 32 * 32 * 4))),
            ("oriented JPEG", Fixtures.orientedJPEG(orientation: 6)),
        ]
        for (name, data) in cases {
            let read = try #require(ImageHeaderCheck.sizeReadInSwift(of: data), "\(name)")
            let libvips = try ImageDecoder.headerFrames(of: data)
            #expect(read.width == libvips.width && read.height == libvips.height, "\(name)")
            #expect(error(data) == nil, "\(name)")
        }
    }

    /// A header the Swift reading has any doubt about goes to libvips' loader, which gives its verdict: what is
    /// refused stays refused, with the loader's reason.
    @Test func headersTheSwiftReadingDoubtsAreLeftToLibvips() throws {
        var png = [UInt8](Fixtures.png(width: 20, height: 10))
        png[30] ^= 0xFF  // IHDR's CRC
        var badDepth = [UInt8](Fixtures.png(width: 20, height: 10))
        badDepth[24] = 7
        var twelveBit = [UInt8](Fixtures.jpeg(width: 20, height: 10))
        let sof = try #require((0..<twelveBit.count - 1).first { twelveBit[$0] == 0xFF && twelveBit[$0 + 1] == 0xC0 })
        twelveBit[sof + 4] = 12
        var scanFirst = [UInt8](Fixtures.jpeg(width: 20, height: 10))
        scanFirst.replaceSubrange(2..<2, with: [0xFF, 0xDA, 0x00, 0x02])
        for (name, bytes) in [("PNG CRC", png), ("PNG depth", badDepth), ("12-bit", twelveBit), ("SOS", scanFirst)] {
            let data = Data(bytes)
            #expect(ImageHeaderCheck.sizeReadInSwift(of: data) == nil, "\(name)")
            let verdict = Result { () throws(KingfisherError) in try ImageDecoder.headerFrames(of: data) }
            switch (verdict, error(data)) {
            case (.success, nil), (.failure, _?): break
            default: Issue.record("\(name): the check and libvips' loader disagree")
            }
        }
        // A header over the pixel limit read in Swift is refused with the limit's reason, as libvips' would be.
        let large = Fixtures.pngHeaderOnly(width: 40_000, height: 40_000)
        #expect(ImageHeaderCheck.sizeReadInSwift(of: large)?.width == 40_000)
        guard case .processorError(.pixelLimitExceeded(40_000, 40_000, _)) = error(large) else {
            Issue.record("expected pixelLimitExceeded, got \(String(describing: error(large)))")
            return
        }
    }
}
