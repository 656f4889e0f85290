import ArgumentParser
import Foundation
import Kingfisher

/// The processing flags, one per built-in processor, applied in the order they are given on the command line.
struct ProcessingFlags: ParsableArguments {
    @Option(help: ArgumentHelp("Resize to WxH pixels (ResizingImageProcessor).", valueName: "WxH"))
    var resize: [PixelSize] = []

    @Option(help: "How --resize fits: none (stretch), fit (inside WxH) or fill (cover WxH).")
    var mode: ResizeMode = .none

    @Option(help: ArgumentHelp("Decode shrunk to fit WxH (DownsamplingImageProcessor).", valueName: "WxH"))
    var downsample: [PixelSize] = []

    @Option(
        help: ArgumentHelp(
            "Crop WxH pixels, centred or with its top-left corner at x,y (CroppingImageProcessor).",
            valueName: "WxH[@x,y]"))
    var crop: [CropSpec] = []

    @Option(help: ArgumentHelp("Round the corners: pixels or a percentage of the width.", valueName: "R|P%"))
    var round: [RadiusArgument] = []

    @Option(
        help: ArgumentHelp(
            "Draw a border inside the edges, e.g. 4:#336699; it follows the corners of an earlier --round, or "
                + "takes its own radius (4:#336699:12, 4:#336699:50%).", valueName: "WIDTH:COLOR[:R]"))
    var border: [BorderSpec] = []

    // Numbers are taken as values even when they start with a dash (`--blur -1` is then a bad radius, not a
    // missing one; `--brightness -0.2` works).
    @Option(
        parsing: .unconditionalSingleValue,
        help: ArgumentHelp("Gaussian blur with this radius in pixels.", valueName: "R"))
    var blur: [Double] = []

    @Option(help: ArgumentHelp("Draw a colour over the image (its alpha sets the strength).", valueName: "COLOR"))
    var tint: [ColorArgument] = []

    @Option(
        help: ArgumentHelp(
            "Mix a colour in; FRACTION (0...1) is how much of the image stays, e.g. red:0.7.",
            valueName: "COLOR:FRACTION"))
    var overlay: [OverlaySpec] = []

    @Flag(help: "Black and white.")
    var bw = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Colour controls: brightness to add (-1...1, 0 keeps).", valueName: "B"))
    var brightness: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Colour controls: contrast factor (1 keeps).", valueName: "C"))
    var contrast: Double?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Colour controls: saturation factor (0 grey, 1 keeps).", valueName: "S"))
    var saturation: Double?

    func validate() throws {
        if blur.contains(where: { !$0.isFinite || $0 < 0 }) {
            throw ValidationError("--blur needs a radius of 0 or more.")
        }
        for value in [brightness, contrast, saturation].compactMap({ $0 }) where !value.isFinite {
            throw ValidationError("--brightness, --contrast and --saturation need finite numbers.")
        }
    }

    /// The processors in the order their flags appear in `arguments` (the raw command line); the colour controls
    /// count as one step, placed where the first of them appears. A flag `arguments` doesn't show (a caller that
    /// built the flags in code) goes last, in the order of the list above.
    func processor(orderedBy arguments: [String] = CommandLine.arguments) -> any ImageProcessor {
        let chain = steps(in: arguments)
        guard var combined = chain.first else { return DefaultImageProcessor.default }
        for next in chain.dropFirst() { combined = combined.append(another: next) }
        return combined
    }

    private enum Step: Hashable {
        case resize, downsample, crop, round, border, blur, tint, overlay, bw, colorControls
    }

    private static let flagSteps: [String: Step] = [
        "--resize": .resize, "--downsample": .downsample, "--crop": .crop, "--round": .round, "--border": .border,
        "--blur": .blur, "--tint": .tint, "--overlay": .overlay, "--bw": .bw, "--brightness": .colorControls,
        "--contrast": .colorControls, "--saturation": .colorControls,
    ]

    private func steps(in arguments: [String]) -> [any ImageProcessor] {
        var order: [Step] = []
        var colorControlsPlaced = false
        for argument in arguments {
            if argument == "--" { break }
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            guard let step = Self.flagSteps[name] else { continue }
            if step == .colorControls {
                if colorControlsPlaced { continue }
                colorControlsPlaced = true
            }
            order.append(step)
        }
        var queues = Queues(flags: self)
        var processors = order.compactMap { queues.next(for: $0) }
        // Values the command line didn't show (flags set in code) follow in a fixed order.
        for step in [Step.resize, .downsample, .crop, .round, .border, .blur, .tint, .overlay, .bw, .colorControls] {
            while let processor = queues.next(for: step) { processors.append(processor) }
        }
        return processors
    }

    /// The values of each flag, taken one at a time in command-line order.
    private struct Queues {
        var resize: ArraySlice<PixelSize>
        var downsample: ArraySlice<PixelSize>
        var crop: ArraySlice<CropSpec>
        var round: ArraySlice<RadiusArgument>
        var border: ArraySlice<BorderSpec>
        var blur: ArraySlice<Double>
        var tint: ArraySlice<ColorArgument>
        var overlay: ArraySlice<OverlaySpec>
        var bw: Bool
        var colorControls: ColorControlsProcessor?
        let mode: ContentMode
        /// The radius of the last `--round` taken, which a later `--border` without its own radius follows.
        var roundedRadius: Radius?

        init(flags: ProcessingFlags) {
            resize = flags.resize[...]
            downsample = flags.downsample[...]
            crop = flags.crop[...]
            round = flags.round[...]
            border = flags.border[...]
            blur = flags.blur[...]
            tint = flags.tint[...]
            overlay = flags.overlay[...]
            bw = flags.bw
            mode = flags.mode.contentMode
            if flags.brightness != nil || flags.contrast != nil || flags.saturation != nil {
                colorControls = ColorControlsProcessor(
                    brightness: flags.brightness ?? 0, contrast: flags.contrast ?? 1,
                    saturation: flags.saturation ?? 1, inputEV: 0)
            }
        }

        mutating func next(for step: Step) -> (any ImageProcessor)? {
            switch step {
            case .resize:
                return resize.popFirst().map { ResizingImageProcessor(referenceSize: $0.cgSize, mode: mode) }
            case .downsample:
                return downsample.popFirst().map { DownsamplingImageProcessor(size: $0.cgSize) }
            case .crop:
                return crop.popFirst().map(Self.cropper)
            case .round:
                guard let radius = round.popFirst()?.radius else { return nil }
                roundedRadius = radius
                return RoundCornerImageProcessor(radius: radius)
            case .border:
                guard let spec = border.popFirst() else { return nil }
                let radius = spec.radius?.radius ?? roundedRadius ?? .point(0)
                return BorderImageProcessor(
                    border: Border(color: spec.color.color, lineWidth: spec.width, radius: radius))
            case .blur:
                return blur.popFirst().map { BlurImageProcessor(blurRadius: $0) }
            case .tint:
                return tint.popFirst().map { TintImageProcessor(tint: $0.color) }
            case .overlay:
                return overlay.popFirst().map { OverlayImageProcessor(overlay: $0.color.color, fraction: $0.fraction) }
            case .bw:
                defer { bw = false }
                return bw ? BlackWhiteProcessor() : nil
            case .colorControls:
                defer { colorControls = nil }
                return colorControls
            }
        }

        private static func cropper(_ spec: CropSpec) -> any ImageProcessor {
            guard let origin = spec.origin else { return CroppingImageProcessor(size: spec.size.cgSize) }
            return PixelCropProcessor(width: spec.size.width, height: spec.size.height, x: origin.x, y: origin.y)
        }
    }
}
