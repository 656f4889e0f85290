import Foundation
import Kingfisher
import Testing

@Suite struct ImageProcessorTests {
    @Test func identifiersFollowKingfisher() {
        #expect(DefaultImageProcessor.default.identifier == "")
        #expect(
            ResizingImageProcessor(referenceSize: CGSize(width: 10, height: 20)).identifier
                == "com.onevcat.Kingfisher.ResizingImageProcessor((10.0, 20.0))")
        #expect(
            ResizingImageProcessor(referenceSize: CGSize(width: 10, height: 20), mode: .aspectFit).identifier
                == "com.onevcat.Kingfisher.ResizingImageProcessor((10.0, 20.0), aspectFit)")
        #expect(BlurImageProcessor(blurRadius: 3).identifier == "com.onevcat.Kingfisher.BlurImageProcessor(3.0)")
        #expect(
            RoundCornerImageProcessor(cornerRadius: 8, roundingCorners: [.topLeft]).identifier
                == "com.onevcat.Kingfisher.RoundCornerImageProcessor(8.0_corner(1))")
        #expect(
            RoundCornerImageProcessor(radius: .widthFraction(0.5), targetSize: CGSize(width: 4, height: 4)).identifier
                == "com.onevcat.Kingfisher.RoundCornerImageProcessor(w_frac_0.5_(4.0, 4.0))")
        #expect(TintImageProcessor(tint: .red).identifier == "com.onevcat.Kingfisher.TintImageProcessor(#ff0000ff)")
        #expect(BlackWhiteProcessor().identifier == "com.onevcat.Kingfisher.BlackWhiteProcessor")
        // Different parameters, different identifiers (they become cache keys)
        let identifiers = [
            CroppingImageProcessor(size: CGSize(width: 10, height: 10)).identifier,
            CroppingImageProcessor(size: CGSize(width: 10, height: 10), anchor: .zero).identifier,
            OverlayImageProcessor(overlay: .red).identifier,
            OverlayImageProcessor(overlay: .red, fraction: 0.2).identifier,
            ColorControlsProcessor(brightness: 0, contrast: 1, saturation: 1, inputEV: 0).identifier,
            ColorControlsProcessor(brightness: 0.1, contrast: 1, saturation: 1, inputEV: 0).identifier,
            BorderImageProcessor(border: Border()).identifier,
            BorderImageProcessor(border: Border(lineWidth: 2)).identifier,
            BlendImageProcessor(blendMode: .multiply).identifier,
            BlendImageProcessor(blendMode: .multiply, backgroundColor: .white).identifier,
            DownsamplingImageProcessor(size: CGSize(width: 10, height: 10)).identifier,
        ]
        #expect(Set(identifiers).count == identifiers.count)
    }

    @Test func appendingComposesIdentifiersAndWork() throws {
        let resize = ResizingImageProcessor(referenceSize: CGSize(width: 20, height: 10))
        let crop = CroppingImageProcessor(size: CGSize(width: 10, height: 10), anchor: .zero)
        let chained = resize |> crop
        #expect(chained.identifier == "\(resize.identifier)|>\(crop.identifier)")
        #expect(resize.append(another: crop).identifier == chained.identifier)
        #expect(
            (chained |> BlackWhiteProcessor()).identifier
                == "\(chained.identifier)|>com.onevcat.Kingfisher.BlackWhiteProcessor")

        // Both steps run, in order, on data too
        let output = try #require(
            chained.process(item: .data(Fixtures.png(width: 80, height: 60)), options: processingOptions()))
        #expect(output.pixelWidth == 10 && output.pixelHeight == 10)
        #expect(chained == (resize |> crop))
        #expect(chained != (crop |> resize))
    }

    @Test func generalProcessorRunsItsClosure() throws {
        let invert = GeneralProcessor(identifier: "com.example.invert") { item, options in
            guard case .image(let image) = item else { return nil }
            let pixels = image.kf.rgbaPixels().enumerated().map { $0.offset % 4 == 3 ? $0.element : 255 - $0.element }
            return try? KFCrossPlatformImage(rgbaPixels: pixels, width: image.pixelWidth, height: image.pixelHeight)
        }
        let output = try #require(invert.run(Fixtures.solid([10, 20, 30, 255], width: 2, height: 2)))
        #expect(output.pixel(0, 0) == [245, 235, 225, 255])
        #expect(invert.identifier == "com.example.invert")
    }

    @Test func defaultProcessorDecodesAndAppliesTheScaleFactor() throws {
        let options = KingfisherParsedOptionsInfo([.scaleFactor(2)])
        let decoded = try #require(
            DefaultImageProcessor.default.process(item: .data(Fixtures.png(width: 40, height: 20)), options: options))
        #expect(decoded.scale == 2 && decoded.size == CGSize(width: 20, height: 10))
        let rescaled = try #require(
            DefaultImageProcessor.default.process(
                item: .image(Fixtures.gradient(width: 40, height: 20)), options: options))
        #expect(rescaled.scale == 2 && rescaled.pixelWidth == 40)
        #expect(DefaultImageProcessor.default.process(item: .data(Data("not an image".utf8)), options: options) == nil)
    }
}
