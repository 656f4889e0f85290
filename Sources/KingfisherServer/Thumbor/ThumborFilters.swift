import Foundation
public import Kingfisher

/// The filters of a thumbor URL, checked and typed: what they do to the pixels (in URL order), to the fit, and
/// to the encoding. An unknown filter or a bad argument is an error whose text is safe for a `400`.
public struct ThumborFilters: Sendable, Hashable {
    /// An output format `format(...)` can ask for.
    public enum OutputFormat: String, Sendable, Hashable, CaseIterable {
        case jpeg, png, gif, webp, avif, heif

        public var imageFormat: ImageFormat {
            switch self {
            case .jpeg: .JPEG
            case .png: .PNG
            case .gif: .GIF
            case .webp: .WebP
            case .avif: .AVIF
            case .heif: .HEIF
            }
        }
    }

    /// A change to the pixels, applied after the geometry in the order the URL gives.
    public enum Effect: Sendable, Hashable {
        /// `blur(radius[,sigma])`: a Gaussian blur of this standard deviation.
        case blur(sigma: Double)
        /// `round_corner(a|b,r,g,b[,transparent])`: corners of radius `a`, outside filled with the colour or left
        /// transparent (`nil`).
        case roundCorners(radius: Double, fill: KFCrossPlatformColor?)
        case grayscale
        /// `brightness(-100...100)`: percent of full scale added to each colour channel.
        case brightness(Int)
        /// `contrast(-100...100)`: each colour channel's distance from mid-grey (128) scaled by `(100 + v)² / 100`
        /// percent.
        case contrast(Int)
        /// `rgb(r,g,b)`, each -100...100: percent of full scale added to that channel.
        case rgb(red: Int, green: Int, blue: Int)
        /// `colorize(r,g,b,RRGGBB)`: each channel blended toward the colour's, by its percentage (0...100).
        case colorize(red: Int, green: Int, blue: Int, color: [Int])
        /// `equalize()`: each colour channel's histogram equalised.
        case equalize
        /// `noise(amount[,seed])`: the same random amount, spread like a uniform one over `amount` (0...100),
        /// added to a pixel's three channels; a seed above 0 makes the pattern repeatable.
        case noise(amount: Int, seed: Int)
        /// `proportion(0 < v <= 1)`: the result scaled by `v` (thumbor ignores other values, and so do we).
        case proportion(Double)
        /// `background_color(colour)`: transparency composited over an opaque colour.
        case backgroundColor(KFCrossPlatformColor)
        /// `convolution(a;b;c;...,columns[,normalize])`: every band convolved with the matrix (an odd number of
        /// rows of an odd number of columns, at most 15 x 15), divided by its sum when normalised.
        case convolution(kernel: [Double], columns: Int, divisor: Double)
        /// `sharpen(amount,radius[,luminance_only])`: an unsharp mask of that strength and radius.
        case sharpen(amount: Double, radius: Double)
        /// `saturation(factor)`: 0 grey, 1 unchanged, 2 twice as saturated (around each pixel's perceived
        /// brightness, as thumbor).
        case saturation(Double)
        /// `rotate(degrees)`: anticlockwise, in quarter turns.
        case rotate(quarterTurns: Int)
        /// `fill(colour[,fill_transparent])`: the image, centred, on a canvas of the size asked for (it is smaller
        /// after `fit-in`); with `fill_transparent`, its transparent pixels show the fill too.
        case fill(Fill, fillsTransparency: Bool)
        /// `curve(all,red,green,blue)`: tone curves, each a list of `(x,y)` points: a channel's level goes through
        /// its own curve, then through the curve of all channels.
        case curve(all: [CurvePoint], red: [CurvePoint], green: [CurvePoint], blue: [CurvePoint])
        /// `watermark(url,x,y,alpha[,w_ratio,h_ratio])`: another image drawn over the result.
        case watermark(ThumborWatermark)
        /// `frame(url)`: the result padded and framed by a nine-patch image.
        case frame(url: String)
    }

    /// The URLs of the images the filters draw (watermarks, frames), which the processor needs before it runs.
    public var overlayURLs: [String] {
        effects.compactMap {
            switch $0 {
            case .watermark(let watermark): watermark.url
            case .frame(let url): url
            default: nil
            }
        }
    }

    /// What `fill(...)` paints around an image (fitted in, say) to make it exactly the size asked for.
    public enum Fill: Sendable, Hashable {
        case color(KFCrossPlatformColor)
        case transparent
        /// `fill(auto)`: the image's mean colour.
        case auto
        /// `fill(blur)`: the image itself, blurred and stretched to the canvas.
        case blur
    }

    /// A point of a `curve(...)`: level `x` (0...255) maps to level `y` (0...255).
    public struct CurvePoint: Sendable, Hashable {
        public let x: Int
        public let y: Int

        public init(x: Int, y: Int) {
            self.x = x
            self.y = y
        }
    }

    /// `quality(0...100)`, for lossy formats.
    public var quality: Int?
    /// `format(...)`; `nil` keeps the source's format (or what the server negotiates).
    public var format: OutputFormat?
    /// `upscale()` (true) or `no_upscale()` (false); `nil` leaves the fit mode's default.
    public var upscale: Bool?
    /// `max_age(seconds)`: the result's `Cache-Control` max-age (0: `no-cache`) instead of the server's.
    public var maxAge: Int?
    /// `max_bytes(n)`: the most bytes a JPEG or WebP result may have.
    public var maxBytes: Int?
    /// `stretch()`: in the crop mode with both sides given, the image is resized to exactly that box (its
    /// proportions not kept) instead of being cropped to it.
    public var stretch = false
    /// `focal(LxT:RxB)`, each a region in the source's pixels (a crop in the crop mode keeps their weighted centre
    /// as near its middle as the image allows); `extract_focal()` adds the crop of the thumbor URL it unwraps.
    public var focalRegions: [ThumborURL.Crop] = []
    public var effects: [Effect] = []

    /// Whether a `fill` is among the effects.
    public var fills: Bool {
        effects.contains {
            if case .fill = $0 { return true }
            return false
        }
    }

    /// The most filters one URL may name: a longer chain is refused (`400`) before anything is fetched, so that a
    /// URL of a few kilobytes cannot ask for minutes of work (each filter computes every pixel again).
    public static let maximumCount = 50

    public init() {}

    public init(_ filters: [ThumborURL.Filter]) throws(ThumborURLError) {
        guard filters.count <= Self.maximumCount else {
            throw .tooManyFilters(count: filters.count, limit: Self.maximumCount)
        }
        for filter in filters {
            try apply(filter)
        }
    }

    private mutating func apply(_ filter: ThumborURL.Filter) throws(ThumborURLError) {
        let reader = ArgumentReader(filter: filter)
        switch filter.name {
        case "quality":
            try reader.expectCount(1...1)
            quality = try reader.integer(0, in: 0...100)
        case "format":
            try reader.expectCount(1...1)
            let name = filter.arguments[0].lowercased()
            guard let format = OutputFormat(rawValue: name == "jpg" ? "jpeg" : name) else {
                throw reader.bad("\(filter.arguments[0].quotedCut) is not one of jpeg, png, gif, webp, avif, heif")
            }
            self.format = format
        case "blur":
            try reader.expectCount(1...2)
            let radius = try reader.number(0, in: 0...150)
            let sigma = filter.arguments.count > 1 ? try reader.number(1, in: 0...150) : radius
            if sigma > 0 { effects.append(.blur(sigma: sigma)) }
        case "round_corner":
            try reader.expectCount(4...5)
            let radii = filter.arguments[0].split(separator: "|", omittingEmptySubsequences: false)
            guard (1...2).contains(radii.count), let radius = Double(radii[0]), radius >= 0, radius <= 10_000,
                radii.count == 1 || Double(radii[1]) != nil
            else { throw reader.bad("the radius must be a or a|b, in pixels") }
            let red = try reader.integer(1, in: 0...255)
            let green = try reader.integer(2, in: 0...255)
            let blue = try reader.integer(3, in: 0...255)
            let transparent = filter.arguments.count > 4 ? try reader.integer(4, in: 0...1) == 1 : false
            let colour = KFCrossPlatformColor(
                red: CGFloat(red) / 255, green: CGFloat(green) / 255, blue: CGFloat(blue) / 255)
            effects.append(.roundCorners(radius: radius, fill: transparent ? nil : colour))
        case "grayscale":
            try reader.expectCount(0...0)
            effects.append(.grayscale)
        case "brightness":
            try reader.expectCount(1...1)
            effects.append(.brightness(try reader.integer(0, in: -100...100)))
        case "contrast":
            try reader.expectCount(1...1)
            effects.append(.contrast(try reader.integer(0, in: -100...100)))
        case "saturation":
            try reader.expectCount(1...1)
            effects.append(.saturation(try reader.number(0, in: 0...100)))
        case "rgb":
            try reader.expectCount(3...3)
            effects.append(
                .rgb(
                    red: try reader.integer(0, in: -100...100), green: try reader.integer(1, in: -100...100),
                    blue: try reader.integer(2, in: -100...100)))
        case "colorize":
            try reader.expectCount(4...4)
            let percents = try (0..<3).map { index throws(ThumborURLError) in try reader.integer(index, in: 0...100) }
            let hex = filter.arguments[3].trimmingCharacters(in: .whitespaces).lowercased()
            guard hex.count == 6, let value = Int(hex, radix: 16) else {
                throw reader.bad("\(filter.arguments[3].quotedCut) is not a colour as six hex digits (RRGGBB)")
            }
            effects.append(
                .colorize(
                    red: percents[0], green: percents[1], blue: percents[2],
                    color: [value >> 16 & 0xFF, value >> 8 & 0xFF, value & 0xFF]))
        case "equalize":
            try reader.expectCount(0...0)
            effects.append(.equalize)
        case "noise":
            try reader.expectCount(1...2)
            let amount = try reader.integer(0, in: 0...100)
            let seed = filter.arguments.count > 1 ? try reader.integer(1, in: 0...Int(Int32.max)) : 0
            if amount > 0 { effects.append(.noise(amount: amount, seed: seed)) }
        case "proportion":
            try reader.expectCount(1...1)
            let value = try reader.number(0, in: -1_000_000...1_000_000)
            if value > 0 && value < 1 { effects.append(.proportion(value)) }
        case "background_color":
            try reader.expectCount(1...1)
            guard case .color(let colour) = try Self.fill(named: filter.arguments[0], reader: reader) else {
                throw reader.bad("\(filter.arguments[0].quotedCut) is not a colour name or a hex colour")
            }
            effects.append(.backgroundColor(colour))
        case "convolution":
            try reader.expectCount(2...3)
            let items = filter.arguments[0].split(separator: ";", omittingEmptySubsequences: false)
            let kernel = items.compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }.filter(\.isFinite)
            let columns = try reader.integer(1, in: 1...15)
            let normalise = filter.arguments.count > 2 ? try reader.boolean(2) : true
            guard kernel.count == items.count, kernel.count <= 225, kernel.count % columns == 0,
                columns % 2 == 1, (kernel.count / columns) % 2 == 1
            else {
                throw reader.bad(
                    "the matrix must be numbers separated by ;, in an odd number (at most 15) of rows of an odd "
                        + "number of columns")
            }
            let sum = kernel.reduce(0, +)
            effects.append(.convolution(kernel: kernel, columns: columns, divisor: normalise && sum != 0 ? sum : 1))
        case "sharpen":
            try reader.expectCount(2...3)
            let amount = try reader.number(0, in: 0...10)
            let radius = try reader.number(1, in: 0...50)
            if filter.arguments.count > 2 { _ = try reader.boolean(2) }
            if amount > 0 { effects.append(.sharpen(amount: amount, radius: radius)) }
        case "stretch":
            try reader.expectCount(0...0)
            stretch = true
        case "max_bytes":
            try reader.expectCount(1...1)
            maxBytes = try reader.integer(0, in: 1...Int(Int32.max))
        case "max_age":
            try reader.expectCount(1...1)
            maxAge = try reader.integer(0, in: 0...Int(Int32.max))
        case "rotate":
            try reader.expectCount(1...1)
            let degrees = try reader.integer(0, in: -3600...3600)
            guard degrees % 90 == 0 else { throw reader.bad("the angle must be a multiple of 90") }
            effects.append(.rotate(quarterTurns: degrees / 90))
        case "fill":
            try reader.expectCount(1...2)
            let name = filter.arguments[0].lowercased()
            let fill: Fill =
                switch name {
                case "auto": .auto
                case "blur": .blur
                default: try Self.fill(named: filter.arguments[0], reader: reader)
                }
            let fillsTransparency = filter.arguments.count > 1 ? try reader.boolean(1) : false
            effects.append(.fill(fill, fillsTransparency: fillsTransparency))
        case "frame":
            try reader.expectCount(1...1)
            let url = filter.arguments[0].trimmingCharacters(in: .whitespaces)
            guard !url.isEmpty else { throw reader.bad("takes the nine-patch image's URL") }
            effects.append(.frame(url: url))
        case "watermark":
            effects.append(.watermark(try ThumborWatermark(arguments: filter.arguments, bad: reader.bad)))
        case "focal":
            try reader.expectCount(1...1)
            let text = Substring(filter.arguments[0].trimmingCharacters(in: .whitespaces))
            guard ThumborURL.isCrop(text), let region = try? ThumborURL.crop(text) else {
                throw reader.bad("\(text.quotedCut) is not a region LEFTxTOP:RIGHTxBOTTOM")
            }
            guard region.right > region.left, region.bottom > region.top else {
                throw reader.bad("\(text.quotedCut) is an empty region: RIGHT and BOTTOM must be past LEFT and TOP")
            }
            focalRegions.append(region)
        case "extract_focal":
            // The URL's parsing unwrapped the image and added its crop as a `focal` (ThumborURL.init).
            try reader.expectCount(0...0)
        case "curve":
            try reader.expectCount(4...4)
            let curves = try (0..<4).map { index throws(ThumborURLError) in try reader.curve(index) }
            effects.append(.curve(all: curves[0], red: curves[1], green: curves[2], blue: curves[3]))
        case "upscale":
            try reader.expectCount(0...0)
            upscale = true
        case "no_upscale":
            try reader.expectCount(0...0)
            upscale = false
        case "strip_exif", "strip_icc":
            // Results never carry metadata: orientation is applied and colour converted to sRGB on decode.
            try reader.expectCount(0...0)
        default:
            throw .unknownFilter(filter.name)
        }
    }

    private static let colourNames: [String: KFCrossPlatformColor] = [
        "white": .white, "black": .black, "red": .red, "green": KFCrossPlatformColor(red: 0, green: 128 / 255, blue: 0),
        "lime": .green, "blue": .blue, "yellow": KFCrossPlatformColor(red: 1, green: 1, blue: 0),
        "gray": KFCrossPlatformColor(white: 128 / 255, alpha: 1),
        "grey": KFCrossPlatformColor(white: 128 / 255, alpha: 1),
        "silver": KFCrossPlatformColor(white: 192 / 255, alpha: 1),
    ]

    private static func fill(named name: String, reader: ArgumentReader) throws(ThumborURLError) -> Fill {
        let lowered = name.lowercased()
        if lowered == "transparent" { return .transparent }
        if let colour = colourNames[lowered] { return .color(colour) }
        if lowered.count == 3 || lowered.count == 6, let colour = KFCrossPlatformColor(hex: lowered) {
            return .color(colour)
        }
        throw reader.bad(
            "\(name.quotedCut) is not a colour name, a hex colour, transparent, auto or blur")
    }
}

/// Reads one filter's arguments, failing with the filter's name and the reason.
private struct ArgumentReader {
    let filter: ThumborURL.Filter

    func bad(_ reason: String) -> ThumborURLError {
        .badFilterArgument(filter: filter.name, reason: reason)
    }

    func expectCount(_ counts: ClosedRange<Int>) throws(ThumborURLError) {
        // `name()` has one empty argument as written; it counts as none.
        let count = filter.arguments == [""] ? 0 : filter.arguments.count
        guard counts.contains(count) else {
            let wanted =
                counts.lowerBound == counts.upperBound
                ? "\(counts.lowerBound)" : "\(counts.lowerBound) to \(counts.upperBound)"
            throw bad("takes \(wanted) argument\(counts.upperBound == 1 ? "" : "s"), not \(count)")
        }
    }

    func integer(_ index: Int, in range: ClosedRange<Int>) throws(ThumborURLError) -> Int {
        let text = filter.arguments[index].trimmingCharacters(in: .whitespaces)
        guard let value = Int(text), range.contains(value) else {
            throw bad("\(text.quotedCut) is not a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// thumbor's booleans: `true`, `True`, `1`, `false`, `False`, `0`.
    func boolean(_ index: Int) throws(ThumborURLError) -> Bool {
        let text = filter.arguments[index].trimmingCharacters(in: .whitespaces)
        switch text.lowercased() {
        case "true", "1": return true
        case "false", "0": return false
        default: throw bad("\(text.quotedCut) is not true or false")
        }
    }

    /// A curve as thumbor writes it, `[(x,y),(x,y),...]`: at least one point, levels 0...255, `x` increasing.
    func curve(_ index: Int) throws(ThumborURLError) -> [ThumborFilters.CurvePoint] {
        let text = filter.arguments[index].filter { !$0.isWhitespace }
        let wrong = bad(
            "\(text.quotedCut) is not a curve: [(x,y),...], at least one point, levels 0 to 255, x increasing")
        guard text.hasPrefix("[("), text.hasSuffix(")]") || text.hasSuffix("),]") else { throw wrong }
        var points: [ThumborFilters.CurvePoint] = []
        for piece in text.dropFirst(2).dropLast(text.hasSuffix("),]") ? 3 : 2).split(
            separator: "),(", omittingEmptySubsequences: false)
        {
            let levels = piece.split(separator: ",", omittingEmptySubsequences: false)
            guard levels.count == 2, levels.allSatisfy({ $0.allSatisfy(\.isASCII) }),
                let x = Int(levels[0]), let y = Int(levels[1]), (0...255).contains(x), (0...255).contains(y),
                x > points.last?.x ?? -1
            else { throw wrong }
            points.append(ThumborFilters.CurvePoint(x: x, y: y))
        }
        return points
    }

    func number(_ index: Int, in range: ClosedRange<Double>) throws(ThumborURLError) -> Double {
        let text = filter.arguments[index].trimmingCharacters(in: .whitespaces)
        guard let value = Double(text), value.isFinite, range.contains(value) else {
            throw bad(
                "\(text.quotedCut) is not a number from \(range.lowerBound.formatted()) to \(range.upperBound.formatted())"
            )
        }
        return value
    }
}

extension Double {
    fileprivate func formatted() -> String {
        self == rounded() ? String(Int(self)) : String(self)
    }
}
