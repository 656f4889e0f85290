import Foundation
import Kingfisher
import Testing

@testable import KingfisherServer

/// An animated source keeps its frames through every filter that changes pixels or the canvas (the effects run on
/// each frame), and each frame is changed, not only the first.
@Suite struct ThumborAnimatedFilterTests {
    private let options = KingfisherParsedOptionsInfo(nil)

    /// Two 60 × 40 frames: red-on-left halves, then the same flipped.
    private static let gif: Data = {
        let first = ServerFixtures.halves(width: 60, height: 40)
        let frames = [first, first.kf.flipped(horizontally: true)]
        let animation = KFCrossPlatformImage.animatedImage(with: frames, duration: 0.2)!
        return animation.kf.data(format: .GIF)!
    }()

    static let filters = [
        "brightness(30)", "contrast(30)", "saturation(0.5)", "rgb(10,10,10)", "colorize(50,0,0,00ff00)",
        "equalize()", "noise(20,7)", "sharpen(2,1,true)", "convolution(1;2;1;2;4;2;1;2;1,3,true)",
        "curve([(0,20),(255,200)],[(0,0),(255,255)],[(0,0),(255,255)],[(0,0),(255,255)])", "grayscale()",
        "blur(2)", "round_corner(10,255,255,255)", "rotate(90)", "proportion(0.5)",
        "fill(0000ff)", "fill(auto)", "fill(blur)",
    ]

    @Test(arguments: filters)
    func everyFrameGoesThroughTheFilter(_ filter: String) throws {
        let path = filter.hasPrefix("fill") ? "fit-in/80x80" : "60x40"
        let processor = try ThumborProcessor(ThumborURL(path: "/unsafe/\(path)/filters:\(filter)/a.gif"))
        let image = try #require(processor.process(item: .data(Self.gif), options: options))
        #expect(image.kf.imageFrameCount == 2)
        let frames = try #require(image.kf.images)
        #expect(frames.count == 2)
        // The frames still differ where the source's did (the second is the first mirrored).
        let plain = try ThumborProcessor(ThumborURL(path: "/unsafe/\(path)/a.gif"))
        let unfiltered = try #require(plain.process(item: .data(Self.gif), options: options)?.kf.images)
        // A frame changed: another size, or another top or middle row (the corners; the halves' edge, where the
        // blurs act).
        func row(_ frame: KFCrossPlatformImage) -> [UInt8] {
            [0, frame.pixelHeight / 2].flatMap { y in
                (0..<frame.pixelWidth).flatMap { ServerFixtures.pixel(frame, $0, y) }
            }
        }
        let changed = zip(frames, unfiltered).map { filtered, original in
            filtered.pixelWidth != original.pixelWidth || filtered.pixelHeight != original.pixelHeight
                || row(filtered) != row(original)
        }
        #expect(changed == [true, true], "\(filter)")
    }

    @Test func anAnimationOverThePixelBudgetGetsItsFirstFrameOnly() throws {
        // Two frames of 60 × 40: 4,800 pixels in all.
        let url = try ThumborURL(path: "/unsafe/30x20/filters:grayscale()/a.gif")
        let within = try ThumborProcessor(url, maximumAnimationPixels: 4_800)
        #expect(try #require(within.process(item: .data(Self.gif), options: options)).kf.imageFrameCount == 2)
        let over = try ThumborProcessor(url, maximumAnimationPixels: 4_799)
        let still = try #require(over.process(item: .data(Self.gif), options: options))
        #expect((still.kf.imageFrameCount ?? 1) == 1)
        #expect(still.pixelWidth == 30 && still.pixelHeight == 20)
    }

    @Test func theServersDefaultBudgetIs25MegapixelsOfFrames() {
        #expect(ImageServer.Configuration().maximumAnimationPixels == 25_000_000)
    }
}
