import Foundation
import KfCommandKit
import Kingfisher

/// One picture on the demo's contact sheet: a sample image through a processor chain.
struct DemoJob {
    /// The sample's server path.
    let path: String
    /// The sample's name, for labels.
    let sample: String
    /// What the chain does, in a few words.
    let caption: String
    let processor: any ImageProcessor

    /// The demo's chains: every built-in processor at least once, alone or composed with `|>`.
    static func all(samples: [DemoImage]) -> [DemoJob] {
        let thumb = DownsamplingImageProcessor(size: CGSize(width: 320, height: 240))
        let sepia = KFCrossPlatformColor(red: 0.55, green: 0.35, blue: 0.1, alpha: 0.45)
        let teal = KFCrossPlatformColor(hex: "1f8a8a") ?? .blue
        func job(_ index: Int, _ caption: String, _ processor: any ImageProcessor) -> DemoJob {
            DemoJob(path: samples[index].path, sample: samples[index].title, caption: caption, processor: processor)
        }
        return [
            job(0, "as downloaded", DefaultImageProcessor.default),
            job(0, "downsample 320x240", thumb),
            job(
                0, "downsample |> round 24 |> border",
                thumb |> RoundCornerImageProcessor(cornerRadius: 24)
                    |> BorderImageProcessor(border: Border(color: teal, lineWidth: 6, radius: .point(24)))),
            job(
                0, "downsample |> crop 160x160", thumb |> CroppingImageProcessor(size: CGSize(width: 160, height: 160))),
            job(
                0, "colour controls: saturation 0.3",
                thumb |> ColorControlsProcessor(brightness: 0.03, contrast: 1, saturation: 0.3, inputEV: 0)),
            job(0, "black and white", thumb |> BlackWhiteProcessor()),
            job(0, "blur radius 8", thumb |> BlurImageProcessor(blurRadius: 8)),
            job(0, "tint (sepia, 45 %)", thumb |> TintImageProcessor(tint: sepia)),
            job(1, "as downloaded", DefaultImageProcessor.default),
            job(
                1, "resize fill |> crop 240x120",
                ResizingImageProcessor(referenceSize: CGSize(width: 240, height: 120), mode: .aspectFill)
                    |> CroppingImageProcessor(size: CGSize(width: 240, height: 120))),
            job(1, "overlay red, keep 60 %", OverlayImageProcessor(overlay: .red, fraction: 0.6)),
            job(
                1, "blend multiply on yellow",
                BlendImageProcessor(
                    blendMode: .multiply, alpha: 1, backgroundColor: KFCrossPlatformColor(hex: "f5d142"))),
            job(2, "as downloaded, 12 frames", DefaultImageProcessor.default),
            job(
                2, "downsample 120 |> round 30 %",
                DownsamplingImageProcessor(size: CGSize(width: 120, height: 120))
                    |> RoundCornerImageProcessor(radius: .widthFraction(0.3))),
            job(2, "black and white, 12 frames", BlackWhiteProcessor()),
            job(2, "blur 4, 12 frames", BlurImageProcessor(blurRadius: 4)),
        ]
    }
}
