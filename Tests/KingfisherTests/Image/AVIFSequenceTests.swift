import Foundation
import Kingfisher
import Testing

/// An AVIF image sequence (`.avifs`, brand `avis`; three 48 x 32 frames, red, blue, green, made with Pillow's AVIF
/// plugin): libvips 8.14's loader reads its first frame, but its own format sniffing does not know the brand, so a
/// downsampled decode once failed with "could not process the image".
@Suite struct AVIFSequenceTests {
    private var data: Data {
        get throws {
            try Data(
                contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                    .appendingPathComponent("Reference/animated-3-frames.avifs"))
        }
    }

    @Test func decodesItsFirstFrame() throws {
        let data = try data
        #expect(data.kf.imageFormat == .AVIF)
        let image = try KFCrossPlatformImage(decoding: data)
        #expect(image.pixelWidth == 48 && image.pixelHeight == 32)
        let pixel = Array(image.kf.rgbaPixels().prefix(3))
        #expect(pixel[0] > 180 && pixel[1] < 70 && pixel[2] < 70, "\(pixel)")  // red
    }

    @Test func downsamplesItsFirstFrame() throws {
        let processor = DownsamplingImageProcessor(size: CGSize(width: 24, height: 24))
        let image = try #require(processor.process(item: .data(try data), options: KingfisherParsedOptionsInfo(nil)))
        #expect(image.pixelWidth == 24 && image.pixelHeight == 16)
        let pixel = Array(image.kf.rgbaPixels().prefix(3))
        #expect(pixel[0] > 180 && pixel[1] < 70 && pixel[2] < 70, "\(pixel)")
    }
}
