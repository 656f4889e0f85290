import Foundation

/// What `meta/` answers: thumbor's JSON description of a URL's geometry for a source of a given size — the
/// operations in thumbor's order (the manual crop, the crop mode's crop in the source's pixels, the resize, the
/// flips), the target size and the focal points — worked out from the sizes, as thumbor's JSON engine records them.
extension ThumborProcessor {
    /// One operation of the description.
    enum MetaOperation: Equatable {
        case crop(left: Int, top: Int, right: Int, bottom: Int)
        case resize(width: Int, height: Int)
        case flipHorizontally
        case flipVertically
    }

    /// The operations and the target size for a source of `width` × `height` pixels.
    func metaOperations(forWidth width: Int, height: Int) -> (operations: [MetaOperation], target: (Int, Int)) {
        var operations: [MetaOperation] = []
        var size = (width, height)
        var origin = (0, 0)
        if let crop = url.crop {
            let clipped = (max(0, crop.left), max(0, crop.top), min(width, crop.right), min(height, crop.bottom))
            if clipped.0 < clipped.2, clipped.1 < clipped.3 {
                operations.append(.crop(left: clipped.0, top: clipped.1, right: clipped.2, bottom: clipped.3))
                size = (clipped.2 - clipped.0, clipped.3 - clipped.1)
                origin = (clipped.0, clipped.1)
            }
        }
        let resized = resultSize(forWidth: size.0, height: size.1)
        if url.fit == .crop, !filters.stretch, case let (w?, h?) = box(forWidth: size.0, height: size.1),
            (Double(size.0) / Double(size.1) * 100).rounded() != (Double(w) / Double(h) * 100).rounded()
        {
            // thumbor crops the source to the box's proportions around the focus, then resizes to the box.
            let focus = metaFocus(size: size, origin: origin)
            let (cropWidth, cropHeight): (Int, Int) =
                Double(w) / Double(size.0) > Double(h) / Double(size.1)
                ? (size.0, Int((Double(size.0) * Double(h) / Double(w)).rounded()))
                : (Int((Double(w) * Double(size.1) / Double(h)).rounded(.up)), size.1)
            let left = Int(min(max(focus.x - Double(cropWidth) / 2, 0), Double(size.0 - cropWidth)).rounded())
            let top = Int(min(max(focus.y - Double(cropHeight) / 2, 0), Double(size.1 - cropHeight)).rounded())
            operations.append(
                .crop(
                    left: left, top: top, right: min(left + cropWidth, size.0), bottom: min(top + cropHeight, size.1)))
            size = (min(left + cropWidth, size.0) - left, min(top + cropHeight, size.1) - top)
            let target = (min(w, resized.width), min(h, resized.height))
            if target != size {
                operations.append(.resize(width: target.0, height: target.1))
                size = target
            }
        } else if resized != size {
            operations.append(.resize(width: resized.width, height: resized.height))
            size = resized
        }
        if url.flipsHorizontally { operations.append(.flipHorizontally) }
        if url.flipsVertically { operations.append(.flipVertically) }
        return (operations, size)
    }

    /// thumbor's focal points for the JSON: the `focal` regions (source pixels), or the alignment's point.
    func metaFocalPoints(forWidth width: Int, height: Int) -> [[String: Any]] {
        guard filters.focalRegions.isEmpty else {
            return filters.focalRegions.map { region in
                let centre = region.centre
                return [
                    "x": centre.x, "y": centre.y, "z": centre.weight, "width": region.right - region.left,
                    "height": region.bottom - region.top, "origin": "Explicit",
                ]
            }
        }
        let point = (Double(width) * alignment.x, Double(height) * alignment.y)
        return [["x": point.0, "y": point.1, "z": 1, "width": 1, "height": 1, "origin": "alignment"]]
    }

    /// The JSON `meta/` answers for a source at `sourceURL` of this size and frame count.
    func metaJSON(sourceURL: String, width: Int, height: Int, frames: Int) -> Data {
        let (operations, target) = metaOperations(forWidth: width, height: height)
        var thumbor: [String: Any] = [
            "source": ["url": sourceURL, "width": width, "height": height, "frameCount": frames],
            "operations": operations.map(\.json),
            "target": ["width": target.0, "height": target.1],
        ]
        thumbor["focal_points"] = metaFocalPoints(forWidth: width, height: height)
        // Only numbers, strings, arrays and dictionaries: serialisation cannot fail.
        return (try? JSONSerialization.data(withJSONObject: ["thumbor": thumbor], options: [.sortedKeys])) ?? Data()
    }

    /// The focus a crop-mode crop centres on, in the (manually cropped) image's pixels: the regions' weighted
    /// centre, else the alignment's point.
    private func metaFocus(size: (Int, Int), origin: (Int, Int)) -> (x: Double, y: Double) {
        guard let point = focalPoint(in: (origin.0, origin.1, size.0, size.1)) else {
            return (Double(size.0) * alignment.x, Double(size.1) * alignment.y)
        }
        return (Double(point.x), Double(point.y))
    }
}

extension ThumborProcessor.MetaOperation {
    fileprivate var json: [String: Any] {
        switch self {
        case .crop(let left, let top, let right, let bottom):
            ["type": "crop", "left": left, "top": top, "right": right, "bottom": bottom]
        case .resize(let width, let height): ["type": "resize", "width": width, "height": height]
        case .flipHorizontally: ["type": "flip_horizontally"]
        case .flipVertically: ["type": "flip_vertically"]
        }
    }
}
