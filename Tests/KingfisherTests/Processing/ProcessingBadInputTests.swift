import Foundation
import Kingfisher
import Testing

@Suite struct ProcessingBadInputTests {
    static let allProcessors: [any ImageProcessor] = [
        DefaultImageProcessor.default,
        ResizingImageProcessor(referenceSize: CGSize(width: 3, height: 3), mode: .aspectFill),
        DownsamplingImageProcessor(size: CGSize(width: 3, height: 3)),
        CroppingImageProcessor(size: CGSize(width: 1, height: 1)),
        RoundCornerImageProcessor(cornerRadius: 10),
        RoundCornerImageProcessor(radius: .heightFraction(0.5), backgroundColor: .red),
        BorderImageProcessor(border: Border(lineWidth: 5, radius: .point(3))),
        BlurImageProcessor(blurRadius: 5),
        OverlayImageProcessor(overlay: .blue),
        TintImageProcessor(tint: .clear),
        ColorControlsProcessor(brightness: 1, contrast: 4, saturation: 3, inputEV: 5),
        BlackWhiteProcessor(),
        BlendImageProcessor(blendMode: .difference, alpha: 0.3, backgroundColor: .white),
    ]

    @Test func oneByOneImagesWithAndWithoutAlpha() throws {
        let images = [
            Fixtures.solid([9, 99, 199, 255], width: 1, height: 1),
            try KFCrossPlatformImage(decoding: Fixtures.jpeg(width: 1, height: 1)),
        ]
        for image in images {
            for processor in Self.allProcessors {
                let output = processor.run(image)
                #expect(output != nil, "\(processor.identifier)")
                #expect((output?.pixelWidth ?? 0) >= 1)
            }
        }
    }

    @Test func dataThatIsNotAnImageGivesNil() {
        for processor in Self.allProcessors {
            #expect(processor.process(item: .data(Data("<html>404</html>".utf8)), options: processingOptions()) == nil)
            #expect(processor.process(item: .data(Data()), options: processingOptions()) == nil)
        }
    }

    @Test func zeroNegativeAndNonFiniteParametersGiveNil() {
        let image = Fixtures.gradient(width: 20, height: 20)
        let invalid: [any ImageProcessor] = [
            ResizingImageProcessor(referenceSize: .zero),
            ResizingImageProcessor(referenceSize: CGSize(width: -5, height: 10)),
            ResizingImageProcessor(referenceSize: CGSize(width: CGFloat.nan, height: 10), mode: .aspectFit),
            ResizingImageProcessor(referenceSize: CGSize(width: CGFloat.infinity, height: 10)),
            DownsamplingImageProcessor(size: CGSize(width: CGFloat.nan, height: 10)),
            CroppingImageProcessor(size: CGSize(width: 0, height: 0)),
            CroppingImageProcessor(size: CGSize(width: -3, height: 3)),
            RoundCornerImageProcessor(cornerRadius: .nan),
            RoundCornerImageProcessor(cornerRadius: -4),
            RoundCornerImageProcessor(cornerRadius: 4, targetSize: CGSize(width: 0, height: 10)),
            BorderImageProcessor(border: Border(lineWidth: .nan)),
            BlurImageProcessor(blurRadius: .nan),
            BlurImageProcessor(blurRadius: -1),
            OverlayImageProcessor(overlay: .red, fraction: .nan),
            ColorControlsProcessor(brightness: .infinity, contrast: 1, saturation: 1, inputEV: 0),
            BlendImageProcessor(blendMode: .normal, alpha: .nan),
        ]
        for processor in invalid {
            #expect(processor.run(image) == nil, "\(processor.identifier)")
        }
        // The wrapper methods return the image itself instead
        #expect(image.kf.resize(to: .zero) === image)
        #expect(image.kf.blurred(withRadius: .nan) === image)
        #expect(image.kf.crop(to: CGSize(width: -1, height: 4), anchorOn: .zero) === image)
    }

    @Test func hugeTargetSizesAreRefusedNotAllocated() {
        let image = Fixtures.gradient(width: 8, height: 8)
        #expect(ResizingImageProcessor(referenceSize: CGSize(width: 5e6, height: 5e6)).run(image) == nil)
        #expect(RoundCornerImageProcessor(cornerRadius: 1, targetSize: CGSize(width: 1e7, height: 1)).run(image) == nil)
    }
}
