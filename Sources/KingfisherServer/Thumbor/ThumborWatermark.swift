import Foundation

/// `watermark(url,x,y,alpha[,w_ratio,h_ratio])`, checked: another image drawn over the result, as thumbor places it.
public struct ThumborWatermark: Sendable, Hashable {
    /// Where the watermark goes along one axis.
    public enum Position: Sendable, Hashable {
        /// `N` pixels from the start, or (`-N`, `fromEnd`) from the end: the watermark's far edge `N` pixels before
        /// the image's.
        case pixels(Int, fromEnd: Bool)
        /// `Np` (or `-Np`): `N` percent of the image's length, from the start or the end.
        case percent(Int, fromEnd: Bool)
        case center
        /// Tiled along the axis, spread evenly.
        case `repeat`
    }

    /// The watermark image's URL, as thumbor takes it (fetched as the main image's source is).
    public let url: String
    public let x: Position
    public let y: Position
    /// 0 (opaque as the image is) to 100 (invisible): subtracted from the watermark's alpha, in percent of 255.
    public let transparency: Int
    /// The most of the image's width and height, in percent, the watermark may cover (resized, proportions kept).
    public let widthRatio: Int?
    public let heightRatio: Int?

    init(arguments: [String], bad: (String) -> ThumborURLError) throws(ThumborURLError) {
        guard (4...6).contains(arguments.count), !arguments[0].isEmpty else {
            throw bad("takes url,x,y,alpha[,w_ratio,h_ratio]")
        }
        url = arguments[0].trimmingCharacters(in: .whitespaces)
        x = try Self.position(arguments[1], bad: bad)
        y = try Self.position(arguments[2], bad: bad)
        guard let alpha = Int(arguments[3].trimmingCharacters(in: .whitespaces)), (0...100).contains(alpha) else {
            throw bad("the alpha \(arguments[3].quotedCut) is not a whole number from 0 to 100")
        }
        transparency = alpha
        func ratio(_ index: Int) throws(ThumborURLError) -> Int? {
            guard arguments.count > index else { return nil }
            let text = arguments[index].trimmingCharacters(in: .whitespaces)
            if text == "none" { return nil }
            guard let value = Int(text), (1...100).contains(value) else {
                throw bad("the ratio \(text.quotedCut) is not none or a percentage from 1 to 100")
            }
            return value
        }
        widthRatio = try ratio(4)
        heightRatio = try ratio(5)
    }

    private static func position(_ text: String, bad: (String) -> ThumborURLError) throws(ThumborURLError) -> Position {
        let text = text.trimmingCharacters(in: .whitespaces)
        if text == "center" { return .center }
        if text == "repeat" { return .repeat }
        let fromEnd = text.hasPrefix("-")
        let digits = fromEnd ? text.dropFirst() : Substring(text)
        if digits.hasSuffix("p"), let percent = Int(digits.dropLast()), digits.count > 1, percent <= 100_000 {
            return .percent(percent, fromEnd: fromEnd)
        }
        guard let pixels = Int(digits), !digits.hasPrefix("+"), pixels <= 100_000 else {
            throw bad("the position \(text.quotedCut) is not pixels (-N from the end), Np, center or repeat")
        }
        return .pixels(pixels, fromEnd: fromEnd)
    }

    /// The watermark's size over an image of `image` size: its own, or fitted in the ratios' box as thumbor does.
    func size(over image: (width: Int, height: Int), watermark: (width: Int, height: Int)) -> (width: Int, height: Int)
    {
        guard widthRatio != nil || heightRatio != nil else { return watermark }
        let (w, h) = (Double(watermark.width), Double(watermark.height))
        var maxWidth = widthRatio.map { Double(image.width) * Double($0) / 100 }
        var maxHeight = heightRatio.map { Double(image.height) * Double($0) / 100 }
        if maxWidth == nil, let maxHeight { maxWidth = w * maxHeight / h }
        if maxHeight == nil, let maxWidth { maxHeight = h * maxWidth / w }
        guard let boxWidth = maxWidth, let boxHeight = maxHeight else { return watermark }
        let fitted: (Double, Double) =
            w / boxWidth >= h / boxHeight
            ? (boxWidth, h * boxWidth / w) : (w * boxHeight / h, boxHeight)
        return (
            max(1, Int(fitted.0.rounded(.toNearestOrEven))), max(1, Int(fitted.1.rounded(.toNearestOrEven)))
        )
    }

    /// The top-left corners the watermark is drawn at (several when tiled), as thumbor works them out.
    func placements(over image: (width: Int, height: Int), watermark: (width: Int, height: Int)) -> [(x: Int, y: Int)] {
        let xs = Self.offsets(x, length: image.width, mark: watermark.width)
        let ys = Self.offsets(y, length: image.height, mark: watermark.height)
        if case .repeat = x, case .repeat = y, xs.count * ys.count > 100 {
            // thumbor caps a tiling in both directions at 6 × 6, spread over the image.
            let cappedX = Self.spread(count: min(6, xs.count), length: image.width, mark: watermark.width)
            let cappedY = Self.spread(count: min(6, ys.count), length: image.height, mark: watermark.height)
            return cappedX.flatMap { x in cappedY.map { y in (x, y) } }
        }
        return xs.flatMap { x in ys.map { y in (x, y) } }
    }

    private static func offsets(_ position: Position, length: Int, mark: Int) -> [Int] {
        switch position {
        case .pixels(let pixels, let fromEnd):
            return [fromEnd ? length - mark - pixels : pixels]
        case .percent(let percent, let fromEnd):
            let pixels = Int((Double(length) * Double(percent) / 100 + 1e-5).rounded(.toNearestOrEven))
            return [fromEnd ? length - mark - pixels : pixels]
        case .center:
            return [Int(Double(length - mark) / 2)]
        case .repeat:
            let mark = max(1, mark)
            if Double(length) / Double(mark) < 2 {
                // Fewer than two fit: as many as cover the length, 10 pixels apart.
                let count = Int((Double(length) / Double(mark)).rounded(.up))
                return (0..<count).map { $0 * (10 + mark) }
            }
            return spread(count: length / mark, length: length, mark: mark)
        }
    }

    /// `count` marks along `length`, the first at 0, the room they leave shared evenly between them.
    private static func spread(count: Int, length: Int, mark: Int) -> [Int] {
        let space = (length - count * mark) / (max(count, 2) - 1)
        return (0..<count).map { $0 * (space + mark) }
    }
}
