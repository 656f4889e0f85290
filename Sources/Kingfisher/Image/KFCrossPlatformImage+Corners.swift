import CVips
public import Foundation

extension KFCrossPlatformImage {
    /// The image stretched to `size` points with the chosen corners cut round (anti-aliased), on
    /// `backgroundColor` when given, else transparent. Every frame of an animation.
    func rounding(
        radius: Radius,
        fit size: CGSize,
        roundingCorners corners: RectCorner,
        backgroundColor: KFCrossPlatformColor?
    ) throws(VipsError) -> KFCrossPlatformImage {
        let pointRadius = radius.compute(with: size)
        guard pointRadius.isFinite, pointRadius >= 0 else {
            throw VipsError(operation: "round corner", message: "invalid radius \(pointRadius)")
        }
        let (width, height) = try pixelSize(of: size)
        let path = Self.roundedRectPath(
            x: 0, y: 0, width: Double(width), height: Double(height), radius: Double(pointRadius * scale),
            corners: corners)
        let mask = try VipsImageHandle.rendering(
            svg:
                #"<svg xmlns="http://www.w3.org/2000/svg" width="\#(width)" height="\#(height)"><path d="\#(path)" fill="white"/></svg>"#
        ).alphaBand().materialised()
        return try mappingFrames { frame throws(VipsError) in
            let sized = try frame.resized(width: width, height: height).withAlpha()
            let frameMask = mask.inPlaceView()
            let alpha = try sized.alphaBand()
                .apply("multiply") { cvips_multiply($0, frameMask.pointer, $1) }
                .linear([1.0 / 255], [0])
            let clipped = try sized.colourBands().joined(with: alpha)
            guard let backgroundColor else { return clipped }
            let background = try VipsImageHandle.solid(width: width, height: height, color: backgroundColor)
            return try background.composited(with: clipped, mode: VIPS_BLEND_MODE_OVER)
        }
    }

    /// A stroke of `border.lineWidth` points drawn inside the edges, with the border's corner radius.
    func bordering(_ border: Border) throws(VipsError) -> KFCrossPlatformImage {
        let lineWidth = Double(border.lineWidth * scale)
        let radius = Double(border.radius.compute(with: size) * scale)
        guard lineWidth.isFinite, lineWidth >= 0, radius.isFinite, radius >= 0 else {
            throw VipsError(operation: "border", message: "invalid line width or radius")
        }
        guard lineWidth > 0 else { return self }
        let (width, height) = (pixelWidth, pixelHeight)
        let inset = lineWidth / 2
        let path = Self.roundedRectPath(
            x: inset, y: inset, width: Double(width) - lineWidth, height: Double(height) - lineWidth,
            radius: radius, corners: border.roundingCorners)
        let c = border.color.rgba8
        let stroke = "rgb(\(c[0]),\(c[1]),\(c[2]))"
        let opacity = Double(c[3]) / 255
        let overlay = try VipsImageHandle.rendering(
            svg:
                #"<svg xmlns="http://www.w3.org/2000/svg" width="\#(width)" height="\#(height)"><path d="\#(path)" fill="none" stroke="\#(stroke)" stroke-opacity="\#(opacity)" stroke-width="\#(lineWidth)"/></svg>"#
        )
        return try mappingFrames { frame throws(VipsError) in
            let result = try frame.composited(with: overlay.inPlaceView(), mode: VIPS_BLEND_MODE_OVER)
            return frame.hasAlpha ? result : try result.colourBands()
        }
    }

    /// SVG path data for a rectangle whose selected corners are quarter circles of `radius` (clamped to fit).
    static func roundedRectPath(
        x: Double, y: Double, width: Double, height: Double, radius: Double, corners: RectCorner
    ) -> String {
        let r = max(0, min(radius, width / 2, height / 2))
        func corner(_ c: RectCorner) -> Double { corners.contains(c) ? r : 0 }
        let (tl, tr, br, bl) = (corner(.topLeft), corner(.topRight), corner(.bottomRight), corner(.bottomLeft))
        let (right, bottom) = (x + width, y + height)
        return [
            "M\(x + tl),\(y)", "H\(right - tr)", "A\(tr),\(tr) 0 0 1 \(right),\(y + tr)",
            "V\(bottom - br)", "A\(br),\(br) 0 0 1 \(right - br),\(bottom)",
            "H\(x + bl)", "A\(bl),\(bl) 0 0 1 \(x),\(bottom - bl)",
            "V\(y + tl)", "A\(tl),\(tl) 0 0 1 \(x + tl),\(y)", "Z",
        ].joined(separator: " ")
    }
}

extension KingfisherWrapper where Base == KFCrossPlatformImage {
    /// The image stretched to `size` points with round corners of `radius` points; transparent outside the
    /// corners unless `backgroundColor` is given. Returns the image itself on failure.
    public func image(
        withRoundRadius radius: CGFloat,
        fit size: CGSize,
        roundingCorners corners: RectCorner = .all,
        backgroundColor: KFCrossPlatformColor? = nil
    ) -> KFCrossPlatformImage {
        image(withRadius: .point(radius), fit: size, roundingCorners: corners, backgroundColor: backgroundColor)
    }

    /// As ``image(withRoundRadius:fit:roundingCorners:backgroundColor:)``, with a ``Radius`` that may be a fraction
    /// of the size.
    public func image(
        withRadius radius: Radius,
        fit size: CGSize,
        roundingCorners corners: RectCorner = .all,
        backgroundColor: KFCrossPlatformColor? = nil
    ) -> KFCrossPlatformImage {
        (try? base.rounding(radius: radius, fit: size, roundingCorners: corners, backgroundColor: backgroundColor))
            ?? base
    }

    /// The image with `border` stroked inside its edges. Returns the image itself on failure.
    public func addingBorder(_ border: Border) -> KFCrossPlatformImage {
        (try? base.bordering(border)) ?? base
    }
}
