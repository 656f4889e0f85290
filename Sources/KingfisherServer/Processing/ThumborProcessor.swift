import Foundation
public import Kingfisher

/// Everything a thumbor URL asks of the pixels, as one Kingfisher processor: trim, manual crop (in the source's
/// coordinates, as thumbor), resize by the fit mode (`crop` fills the size and crops at the alignment or smartly;
/// `fit-in` fits inside, `adaptive-fit-in` turns the box to the image's orientation, `full-fit-in` fits the shorter
/// side), flips, then the filters' effects in URL order (`fill` among them), with the library's image operations
/// and processors.
///
/// Its identifier is built from the options (and the output the server chose), so an in-process retrieval with the
/// same processor shares the server's cache entries. Data is decoded with shrink-on-load when the geometry allows
/// (no trim or manual crop, a still image): a photo is never decoded at full size for a thumbnail.
///
/// thumbor's enlarging rules: the `crop` mode enlarges unless `no_upscale()`; the fit modes never enlarge unless
/// `upscale()`. A result (or a `fill` canvas) above ``maximumResultPixels`` fails with
/// `pixelLimitExceeded` before any pixel of it is computed.
public struct ThumborProcessor: ImageProcessor {
    public let identifier: String
    public let url: ThumborURL
    public let filters: ThumborFilters
    /// The most pixels a result may have. 50 megapixels by default.
    public let maximumResultPixels: Int
    /// The most pixels of an animated source, every frame counted, decoded with all its frames: a larger one
    /// gets its first frame only (a still result). 25 megapixels by default.
    public let maximumAnimationPixels: Int
    /// The images the filters draw (``ThumborFilters/overlayURLs``: watermarks, frames), by URL: fetched before processing (the
    /// server fetches them as it fetches sources). Not part of the identifier: the URLs are. A filter whose image
    /// is missing fails the processing.
    public var overlays: [String: KFCrossPlatformImage] = [:]

    /// - Parameter output: what the result is encoded as (`"jpeg:80"`, say): part of the identifier only, so that
    ///   two encodings of one result are cached apart.
    public init(
        _ url: ThumborURL, output: String = "", maximumResultPixels: Int = 50_000_000,
        maximumAnimationPixels: Int = 25_000_000
    ) throws(ThumborURLError) {
        self.init(
            url, filters: try ThumborFilters(url.filters), output: output, maximumResultPixels: maximumResultPixels,
            maximumAnimationPixels: maximumAnimationPixels)
    }

    init(
        _ url: ThumborURL, filters: ThumborFilters, output: String, maximumResultPixels: Int,
        maximumAnimationPixels: Int = 25_000_000
    ) {
        self.url = url
        self.filters = filters
        self.maximumResultPixels = max(1, maximumResultPixels)
        self.maximumAnimationPixels = max(1, maximumAnimationPixels)
        identifier = "kf.ThumborProcessor(\(Self.canonicalOptions(of: url)))" + (output.isEmpty ? "" : "->\(output)")
    }

    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        let decoded: (image: KFCrossPlatformImage, sourceSize: (Int, Int)?)?
        switch item {
        case .image(let image): decoded = (image.kf.scaled(to: 1), nil)
        case .data(let data):
            if let refused = refusalFromHeader(of: data) { return ProcessingFailure.fail(with: refused) }
            var options = options
            if isOverAnimationBudget(data) { options.onlyLoadFirstFrame = true }
            decoded = decode(data, options: options)
        }
        guard let decoded else { return nil }
        // Trim and manual crop, on the full image (neither shrinks on load).
        let cutting = { () throws(VipsError) in try self.cutting(decoded.image) }
        guard let (cut, cutOrigin) = ProcessingFailure.catching(cutting) else { return nil }
        let reference = decoded.sourceSize ?? (cut.pixelWidth, cut.pixelHeight)
        let box = box(forWidth: reference.0, height: reference.1)
        let size = resultSize(forWidth: reference.0, height: reference.1)
        if size.width * size.height > maximumResultPixels {
            return ProcessingFailure.fail(
                with: .processorError(
                    reason: .pixelLimitExceeded(width: size.width, height: size.height, limit: maximumResultPixels)))
        }
        // The cut in the source's pixels (a shrunk-on-load image was not cut: the reference is its source size); the
        // focus in the resized image's.
        let focus = focalPoint(in: (cutOrigin.x, cutOrigin.y, reference.0, reference.1)).map { point in
            CGPoint(
                x: CGFloat(point.x) * CGFloat(size.width) / CGFloat(reference.0),
                y: CGFloat(point.y) * CGFloat(size.height) / CGFloat(reference.1))
        }
        guard
            var image = ProcessingFailure.catching({ () throws(VipsError) in
                try self.shaping(cut, resizedTo: size, box: box, focus: focus)
            })
        else { return nil }
        for effect in filters.effects {
            // The request's one time limit covers the whole chain; a chain nobody waits for stops here.
            guard ProcessingFailure.catching({ () throws(VipsError) in try ImageEngine.checkRun() }) != nil else {
                return nil
            }
            guard let next = apply(effect, to: image, box: box, options: options) else { return nil }
            image = next
        }
        return image
    }

    /// The error for a result the header already shows is over ``maximumResultPixels`` (a large source kept at its
    /// size, say), so nothing is decoded for it; `nil` when the header does not tell (unreadable, or a trim or a
    /// manual crop decides the size). Both orientations are tried (EXIF may turn the image): refused only when
    /// either way the result is too large.
    private func refusalFromHeader(of data: Data) -> KingfisherError? {
        guard url.trim == nil, url.crop == nil, let (width, height) = ImageHeaderSize.of(data) else { return nil }
        let upright = resultSize(forWidth: width, height: height)
        let turned = resultSize(forWidth: height, height: width)
        let pixels = min(upright.width * upright.height, turned.width * turned.height)
        guard pixels > maximumResultPixels else { return nil }
        return .processorError(
            reason: .pixelLimitExceeded(width: upright.width, height: upright.height, limit: maximumResultPixels))
    }

    // MARK: - Decoding

    /// Whether `data` is an animation whose frames together have more than ``maximumAnimationPixels``, from its
    /// header: all of them decoded at once would hold about four bytes a pixel.
    private func isOverAnimationBudget(_ data: Data) -> Bool {
        guard data.kf.imageFormat == .GIF || Self.isAnimatedWebP(data),
            let header = try? ImageDecoder.headerFrames(of: data), header.frames > 1
        else { return false }
        return header.width * header.height * header.frames > maximumAnimationPixels
    }

    /// The data decoded, shrunk on load to about the size the geometry will ask for when that is smaller; with
    /// the source's full size when it was shrunk, so the geometry works out exact sizes from it.
    private func decode(
        _ data: Data, options: KingfisherParsedOptionsInfo
    ) -> (image: KFCrossPlatformImage, sourceSize: (Int, Int)?)? {
        if let (side, width, height) = shrinkOnLoadBox(for: data) {
            guard
                let image = KingfisherWrapper<KFCrossPlatformImage>.downsampledImage(
                    data: data, to: CGSize(width: side, height: side), scale: 1)
            else { return nil }
            // Turned by its orientation when the shrunk image's shape is the other way round.
            let turned = (image.pixelWidth > image.pixelHeight) != (width > height) && width != height
            return (image, turned ? (height, width) : (width, height))
        }
        guard let image = DefaultImageProcessor.default.process(item: .data(data), options: options) else {
            return nil
        }
        return (image.kf.scaled(to: 1), nil)
    }

    /// The box `data` is shrunk on load to fit (its side in pixels) and the source's size, when the geometry asks
    /// for a smaller image than the source and the format shrinks on load; `nil` when it decodes whole.
    func shrinkOnLoadBox(for data: Data) -> (side: CGFloat, width: Int, height: Int)? {
        let format = data.kf.imageFormat
        let canShrink =
            url.trim == nil && url.crop == nil && format != .GIF && format != .unknown && !Self.isAnimatedWebP(data)
        guard canShrink, let (width, height) = ImageHeaderSize.of(data) else { return nil }
        // The header's size is before EXIF orientation: the larger scale of both orientations is safe.
        let scale = max(
            resizeScale(forWidth: width, height: height) ?? 1, resizeScale(forWidth: height, height: width) ?? 1)
        guard scale < 1 else { return nil }
        return ((CGFloat(max(width, height)) * scale).rounded(.up), width, height)
    }

    /// Whether WebP data is an animation (the VP8X chunk's animation flag): shrinking on load keeps one frame.
    static func isAnimatedWebP(_ data: Data) -> Bool {
        let bytes = Array(data.prefix(21))
        guard bytes.count == 21, bytes[12..<16].elementsEqual(Array("VP8X".utf8)) else { return false }
        return bytes[20] & 0x02 != 0
    }

    // MARK: - Geometry

    private var upscales: Bool { filters.upscale ?? (url.fit == .crop) }

    /// The requested box for an image of this size: nil on a side that is left proportional.
    func box(forWidth width: Int, height: Int) -> (width: Int?, height: Int?) {
        func side(_ length: ThumborURL.Length, original: Int) -> Int? {
            switch length {
            case .proportional, .pixels(0): nil
            case .pixels(let pixels): pixels
            case .original: original
            }
        }
        var boxWidth = side(url.width, original: width)
        var boxHeight = side(url.height, original: height)
        if url.fit == .adaptiveFitIn, let w = boxWidth, let h = boxHeight, width != height, w != h,
            (width > height) != (w > h)
        {
            swap(&boxWidth, &boxHeight)
        }
        return (boxWidth, boxHeight)
    }

    /// The factor the image is resized by, before any crop; nil when it keeps its size.
    private func resizeScale(forWidth width: Int, height: Int) -> CGFloat? {
        let (boxWidth, boxHeight) = box(forWidth: width, height: height)
        let xScale = boxWidth.map { CGFloat($0) / CGFloat(width) }
        let yScale = boxHeight.map { CGFloat($0) / CGFloat(height) }
        var scale: CGFloat
        switch (xScale, yScale) {
        case (nil, nil): return nil
        case (let x?, nil): scale = x
        case (nil, let y?): scale = y
        case (let x?, let y?): scale = url.fit == .fitIn || url.fit == .adaptiveFitIn ? min(x, y) : max(x, y)
        }
        if !upscales { scale = min(scale, 1) }
        return scale == 1 ? nil : scale
    }

    /// The size the image is resized to (before the crop of the `crop` mode).
    func resultSize(forWidth width: Int, height: Int) -> (width: Int, height: Int) {
        if filters.stretch, url.fit == .crop, case let (w?, h?) = box(forWidth: width, height: height), w > 0, h > 0 {
            return (w, h)
        }
        let scale = resizeScale(forWidth: width, height: height) ?? 1
        // One side given: the other is worked out as thumbor does, from the sizes (not the scale), rounding a half
        // to even as Python's round() (0x200 on 1080 x 1920 is 112 wide, not 113).
        if scale != 1 {
            switch box(forWidth: width, height: height) {
            case (let w?, nil) where CGFloat(w) / CGFloat(width) == scale:
                return (w, Self.proportional(w, height, width))
            case (nil, let h?) where CGFloat(h) / CGFloat(height) == scale:
                return (Self.proportional(h, width, height), h)
            default:
                break
            }
        }
        let resizedWidth = max(1, Int(min((CGFloat(width) * scale).rounded(), 1e9)))
        let resizedHeight = max(1, Int(min((CGFloat(height) * scale).rounded(), 1e9)))
        return (resizedWidth, resizedHeight)
    }

    /// `given × other / side`, a half rounded to even, at least 1.
    private static func proportional(_ given: Int, _ other: Int, _ side: Int) -> Int {
        max(1, Int(min((Double(given) * Double(other) / Double(side)).rounded(.toNearestOrEven), 1e9)))
    }

    var alignment: CGPoint {
        let x: CGFloat =
            switch url.horizontalAlignment {
            case .left: 0
            case .right: 1
            case .center, nil: 0.5
            }
        let y: CGFloat =
            switch url.verticalAlignment {
            case .top: 0
            case .bottom: 1
            case .middle, nil: 0.5
            }
        return CGPoint(x: x, y: y)
    }

    /// Trim, then the manual crop, whose coordinates are the source's (thumbor moves them by what the trim cut
    /// away): the part of the crop rectangle inside the trimmed image. A crop with nothing inside is ignored.
    private func cutting(
        _ source: KFCrossPlatformImage
    ) throws(VipsError) -> (KFCrossPlatformImage, origin: (x: Int, y: Int)) {
        var left = 0
        var top = 0
        var right = source.pixelWidth
        var bottom = source.pixelHeight
        if let trim = url.trim,
            let kept = try source.trimRectangle(
                reference: trim.corner == .topLeft ? .topLeft : .bottomRight, tolerance: Double(trim.tolerance))
        {
            (left, top, right, bottom) = (kept.x, kept.y, kept.x + kept.width, kept.y + kept.height)
        }
        if let crop = url.crop {
            let clipped = (max(left, crop.left), max(top, crop.top), min(right, crop.right), min(bottom, crop.bottom))
            if clipped.0 < clipped.2, clipped.1 < clipped.3 { (left, top, right, bottom) = clipped }
        }
        guard left > 0 || top > 0 || right < source.pixelWidth || bottom < source.pixelHeight else {
            return (source, (0, 0))
        }
        return (try source.croppingPixels(x: left, y: top, width: right - left, height: bottom - top), (left, top))
    }

    /// thumbor's centre of the focal regions that lie in the cut (`x`, `y`, `width`, `height` in the source's
    /// pixels), each weighing its area, rounded down, in the cut's pixels; `nil` without regions there.
    func focalPoint(in cut: (x: Int, y: Int, width: Int, height: Int)) -> (x: Int, y: Int)? {
        let centres = filters.focalRegions.map(\.centre).filter { point in
            (cut.x...(cut.x + cut.width)).contains(point.x) && (cut.y...(cut.y + cut.height)).contains(point.y)
        }
        let total = centres.reduce(0) { $0 + $1.weight }
        guard total > 0 else { return nil }
        return (
            centres.reduce(0) { $0 + ($1.x - cut.x) * $1.weight } / total,
            centres.reduce(0) { $0 + ($1.y - cut.y) * $1.weight } / total
        )
    }

    /// Resize to `size`, the crop of the `crop` mode (around the focal regions' centre, at the alignment, or
    /// smart), and the flips.
    private func shaping(
        _ source: KFCrossPlatformImage, resizedTo size: (width: Int, height: Int), box: (width: Int?, height: Int?),
        focus: CGPoint?
    ) throws(VipsError) -> KFCrossPlatformImage {
        var image = source
        if size.width != image.pixelWidth || size.height != image.pixelHeight {
            image = try image.resizing(to: CGSize(width: size.width, height: size.height))
        }
        if url.fit == .crop, let w = box.width, let h = box.height, w < image.pixelWidth || h < image.pixelHeight {
            let crop = CGSize(width: min(w, image.pixelWidth), height: min(h, image.pixelHeight))
            if let focus {
                // As thumbor: the crop centred on the focus, kept inside the image.
                let left = min(max(focus.x - crop.width / 2, 0), CGFloat(image.pixelWidth) - crop.width)
                let top = min(max(focus.y - crop.height / 2, 0), CGFloat(image.pixelHeight) - crop.height)
                image = try image.croppingPixels(
                    x: Int(left.rounded()), y: Int(top.rounded()), width: Int(crop.width), height: Int(crop.height))
            } else if url.smart {
                image = try image.smartCropping(to: crop)
            } else {
                image = try image.cropping(to: crop, anchorOn: alignment)
            }
        }
        return try image.flipping(horizontally: url.flipsHorizontally, vertically: url.flipsVertically)
    }

    // MARK: - Effects

    private func apply(
        _ effect: ThumborFilters.Effect, to image: KFCrossPlatformImage, box: (width: Int?, height: Int?),
        options: KingfisherParsedOptionsInfo
    ) -> KFCrossPlatformImage? {
        let processor: any ImageProcessor
        switch effect {
        case .fill(let fill, let fillsTransparency):
            return filling(image, with: fill, fillsTransparency: fillsTransparency, box: box)
        case .blur(let sigma): processor = BlurImageProcessor(blurRadius: sigma)
        case .roundCorners(let radius, let fill):
            processor = RoundCornerImageProcessor(cornerRadius: radius, backgroundColor: fill)
        case .grayscale: processor = ColorControlsProcessor(brightness: 0, contrast: 1, saturation: 0, inputEV: 0)
        case .brightness, .contrast, .saturation, .rgb, .colorize, .equalize, .noise, .proportion, .backgroundColor,
            .convolution, .sharpen, .curve:
            return ProcessingFailure.catching { () throws(VipsError) in try ThumborEffects.apply(effect, to: image) }
        case .watermark(let watermark):
            guard let overlay = overlays[watermark.url] else { return nil }
            let image = image
            return ProcessingFailure.catching { () throws(VipsError) in
                let over = (image.pixelWidth, image.pixelHeight)
                let size = watermark.size(over: over, watermark: (overlay.pixelWidth, overlay.pixelHeight))
                return try image.drawing(
                    overlay, size: size, transparency: 255 * watermark.transparency / 100,
                    at: watermark.placements(over: over, watermark: size))
            }
        case .frame(let url):
            guard let patch = overlays[url] else { return nil }
            let image = image
            return ProcessingFailure.catching { () throws(VipsError) in try NinePatch(patch).framing(image) }
        case .rotate(let quarterTurns):
            return ProcessingFailure.catching { () throws(VipsError) in try image.rotating(quarterTurns: -quarterTurns)
            }
        }
        return processor.process(item: .image(image), options: options)
    }

    /// `fill`: the image centred (thumbor's rule, whatever the alignment) on a canvas of the size asked for (a side
    /// not given keeps the image's), painted with a colour, the image's mean colour or a blurred copy of the image.
    private func filling(
        _ image: KFCrossPlatformImage, with fill: ThumborFilters.Fill, fillsTransparency: Bool,
        box: (width: Int?, height: Int?)
    ) -> KFCrossPlatformImage? {
        let canvas = (max(box.width ?? 0, image.pixelWidth), max(box.height ?? 0, image.pixelHeight))
        if canvas.0 * canvas.1 > maximumResultPixels {
            return ProcessingFailure.fail(
                with: .processorError(
                    reason: .pixelLimitExceeded(width: canvas.0, height: canvas.1, limit: maximumResultPixels)))
        }
        let left = (canvas.0 - image.pixelWidth) / 2
        let top = (canvas.1 - image.pixelHeight) / 2
        return ProcessingFailure.catching { () throws(VipsError) in
            let colour: KFCrossPlatformColor
            switch fill {
            case .blur:
                // thumbor blurs with a Gaussian of σ 50 cut off at 50 pixels, before stretching it to the canvas.
                return try image.placedOnBlurredCopy(
                    width: canvas.0, height: canvas.1, left: left, top: top, sigma: 50, radius: 50,
                    mergingTransparency: fillsTransparency)
            case .transparent:
                colour = .clear
            case .color(let chosen):
                colour = chosen
            case .auto:
                let mean = try image.meanColour()
                colour = KFCrossPlatformColor(
                    red: CGFloat(mean.red) / 255, green: CGFloat(mean.green) / 255, blue: CGFloat(mean.blue) / 255)
            }
            let shown = fillsTransparency && colour.rgba8[3] == 255 ? try image.flattening(onto: colour) : image
            return try shown.padding(toPixelWidth: canvas.0, height: canvas.1, color: colour, left: left, top: top)
        }
    }

    // MARK: - Identifier

    /// The options in thumbor's order and spelling, without the signature and the image.
    static func canonicalOptions(of url: ThumborURL) -> String {
        var parts: [String] = []
        if let trim = url.trim { parts.append("trim:\(trim.corner.rawValue):\(trim.tolerance)") }
        if let crop = url.crop { parts.append("\(crop.left)x\(crop.top):\(crop.right)x\(crop.bottom)") }
        if url.fit != .crop { parts.append(url.fit.rawValue) }
        func length(_ value: ThumborURL.Length) -> String {
            switch value {
            case .proportional: "0"
            case .pixels(let pixels): String(pixels)
            case .original: "orig"
            }
        }
        parts.append(
            (url.flipsHorizontally ? "-" : "") + length(url.width) + "x" + (url.flipsVertically ? "-" : "")
                + length(url.height))
        if let alignment = url.horizontalAlignment { parts.append(alignment.rawValue) }
        if let alignment = url.verticalAlignment { parts.append(alignment.rawValue) }
        if url.smart { parts.append("smart") }
        if !url.filters.isEmpty {
            parts.append(
                "filters:"
                    + url.filters.map { "\($0.name)(\($0.arguments.joined(separator: ",")))" }.joined(separator: ":"))
        }
        return parts.joined(separator: "/")
    }
}
