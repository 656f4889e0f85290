public import Foundation
public import Kingfisher

/// Everything a thumbor URL asks of the pixels, as one Kingfisher processor: trim, manual crop, resize by the fit
/// mode (`crop` fills the size and crops at the alignment or smartly; `fit-in` fits inside, `adaptive-fit-in`
/// turns the box to the image's orientation, `full-fit-in` fits the shorter side), `fill`, flips, then the
/// filters' effects in URL order, with the library's image operations and processors.
///
/// Its identifier is built from the options (and the output the server chose), so an in-process retrieval with the
/// same processor shares the server's cache entries. Data is decoded with shrink-on-load when the geometry allows
/// (no trim or manual crop, a still image): a photo is never decoded at full size for a thumbnail.
///
/// thumbor's enlarging rules: the `crop` mode enlarges unless `no_upscale()`; the fit modes never enlarge unless
/// `upscale()`.
public struct ThumborProcessor: ImageProcessor {
    public let identifier: String
    public let url: ThumborURL
    public let filters: ThumborFilters

    /// - Parameter output: what the result is encoded as (`"jpeg:80"`, say): part of the identifier only, so that
    ///   two encodings of one result are cached apart.
    public init(_ url: ThumborURL, output: String = "") throws(ThumborURLError) {
        self.init(url, filters: try ThumborFilters(url.filters), output: output)
    }

    init(_ url: ThumborURL, filters: ThumborFilters, output: String) {
        self.url = url
        self.filters = filters
        identifier = "kf.ThumborProcessor(\(Self.canonicalOptions(of: url)))" + (output.isEmpty ? "" : "->\(output)")
    }

    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        let decoded: (image: KFCrossPlatformImage, sourceSize: (Int, Int)?)?
        switch item {
        case .image(let image): decoded = (image.kf.scaled(to: 1), nil)
        case .data(let data): decoded = decode(data, options: options)
        }
        guard let decoded else { return nil }
        var image = decoded.image
        let geometry = ProcessingFailure.catching { () throws(VipsError) in
            try self.applyingGeometry(to: decoded.image, sourceSize: decoded.sourceSize)
        }
        guard let shaped = geometry else { return nil }
        image = shaped
        for effect in filters.effects {
            guard let next = apply(effect, to: image, options: options) else { return nil }
            image = next
        }
        return image
    }

    // MARK: - Decoding

    /// The data decoded, shrunk on load to about the size the geometry will ask for when that is smaller; with
    /// the source's full size when it was shrunk, so the geometry works out exact sizes from it.
    private func decode(
        _ data: Data, options: KingfisherParsedOptionsInfo
    ) -> (image: KFCrossPlatformImage, sourceSize: (Int, Int)?)? {
        let format = data.kf.imageFormat
        let canShrink = url.trim == nil && url.crop == nil && format != .GIF && format != .unknown
        if canShrink, let (width, height) = ImageHeaderSize.of(data) {
            // The header's size is before EXIF orientation: the larger scale of both orientations is safe.
            let scale = max(
                resizeScale(forWidth: width, height: height) ?? 1, resizeScale(forWidth: height, height: width) ?? 1)
            if scale < 1 {
                let side = (CGFloat(max(width, height)) * scale).rounded(.up)
                guard
                    let image = KingfisherWrapper<KFCrossPlatformImage>.downsampledImage(
                        data: data, to: CGSize(width: side, height: side), scale: 1)
                else { return nil }
                // Turned by its orientation when the shrunk image's shape is the other way round.
                let turned = (image.pixelWidth > image.pixelHeight) != (width > height) && width != height
                return (image, turned ? (height, width) : (width, height))
            }
        }
        guard let image = DefaultImageProcessor.default.process(item: .data(data), options: options) else {
            return nil
        }
        return (image.kf.scaled(to: 1), nil)
    }

    // MARK: - Geometry

    private var upscales: Bool { filters.upscale ?? (url.fit == .crop) }

    /// The requested box for an image of this size: nil on a side that is left proportional.
    private func box(forWidth width: Int, height: Int) -> (width: Int?, height: Int?) {
        func side(_ length: ThumborURL.Length, original: Int) -> Int? {
            switch length {
            case .proportional, .pixels(0): nil
            case .pixels(let pixels): pixels
            case .original: original
            }
        }
        var boxWidth = side(url.width, original: width)
        var boxHeight = side(url.height, original: height)
        if url.fit == .adaptiveFitIn, let w = boxWidth, let h = boxHeight, (width > height) != (w > h), w != h {
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

    private var alignment: CGPoint {
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

    /// - Parameter sourceSize: the size of the source `source` was shrunk from on load (sizes are worked out from
    ///   it, so they come out as from the full image); `nil` when `source` is the full image.
    private func applyingGeometry(
        to source: KFCrossPlatformImage, sourceSize: (Int, Int)?
    ) throws(VipsError) -> KFCrossPlatformImage {
        var image = source
        if let trim = url.trim {
            image = try image.trimming(
                reference: trim.corner == .topLeft ? .topLeft : .bottomRight, tolerance: Double(trim.tolerance))
        }
        if let crop = url.crop, crop.right > crop.left, crop.bottom > crop.top {
            image = try image.croppingPixels(
                x: crop.left, y: crop.top, width: crop.right - crop.left, height: crop.bottom - crop.top)
        }
        let (width, height) = sourceSize ?? (image.pixelWidth, image.pixelHeight)
        let (boxWidth, boxHeight) = box(forWidth: width, height: height)
        let scale = resizeScale(forWidth: width, height: height) ?? 1
        let size = CGSize(
            width: max(1, (CGFloat(width) * scale).rounded()), height: max(1, (CGFloat(height) * scale).rounded()))
        if Int(size.width) != image.pixelWidth || Int(size.height) != image.pixelHeight {
            image = try image.resizing(to: size)
        }
        if url.fit == .crop, let w = boxWidth, let h = boxHeight, w < image.pixelWidth || h < image.pixelHeight {
            let size = CGSize(width: min(w, image.pixelWidth), height: min(h, image.pixelHeight))
            image = url.smart ? try image.smartCropping(to: size) : try image.cropping(to: size, anchorOn: alignment)
        }
        if url.fit != .crop, let fill = filters.fill, let w = boxWidth, let h = boxHeight {
            let colour: KFCrossPlatformColor =
                switch fill {
                case .color(let colour): colour
                case .transparent: .clear
                }
            image = try image.padding(toPixelWidth: w, height: h, color: colour, anchorOn: alignment)
        }
        return try image.flipping(horizontally: url.flipsHorizontally, vertically: url.flipsVertically)
    }

    // MARK: - Effects

    private func apply(
        _ effect: ThumborFilters.Effect, to image: KFCrossPlatformImage, options: KingfisherParsedOptionsInfo
    ) -> KFCrossPlatformImage? {
        let processor: any ImageProcessor
        switch effect {
        case .blur(let sigma): processor = BlurImageProcessor(blurRadius: sigma)
        case .roundCorners(let radius, let fill):
            processor = RoundCornerImageProcessor(cornerRadius: radius, backgroundColor: fill)
        case .grayscale: processor = ColorControlsProcessor(brightness: 0, contrast: 1, saturation: 0, inputEV: 0)
        case .brightness(let percent):
            processor = ColorControlsProcessor(
                brightness: CGFloat(percent) / 100, contrast: 1, saturation: 1, inputEV: 0)
        case .contrast(let percent):
            processor = ColorControlsProcessor(
                brightness: 0, contrast: 1 + CGFloat(percent) / 100, saturation: 1, inputEV: 0)
        case .saturation(let factor):
            processor = ColorControlsProcessor(brightness: 0, contrast: 1, saturation: factor, inputEV: 0)
        case .rotate(let quarterTurns):
            return ProcessingFailure.catching { () throws(VipsError) in try image.rotating(quarterTurns: -quarterTurns)
            }
        }
        return processor.process(item: .image(image), options: options)
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
