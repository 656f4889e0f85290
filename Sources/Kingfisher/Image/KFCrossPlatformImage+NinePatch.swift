import CVips
import Foundation

/// A nine-patch image (Android's format: a one-pixel border whose opaque black pixels mark, on the top and left
/// edges, the rows and columns that stretch, and on the bottom and right edges, where the content goes) drawn as a
/// frame around another image.
package struct NinePatch: Sendable {
    /// A run of rows or columns of the patch (inside its border) that all stretch, or all keep their size.
    private struct Run {
        let start: Int
        let length: Int
        let stretches: Bool
    }

    private let patch: KFCrossPlatformImage
    private let columns: [Run]
    private let rows: [Run]
    /// The content's distance from each edge of the framed image, in pixels: the image is padded by it first.
    package let padding: (left: Int, top: Int, right: Int, bottom: Int)

    /// Reads the markers of `patch` (at least 3 × 3 pixels, its first frame).
    package init(_ patch: KFCrossPlatformImage) throws(VipsError) {
        try VipsRuntime.start()
        guard !patch.isEmptyImage, patch.pixelWidth >= 3, patch.pixelHeight >= 3 else {
            throw VipsError(operation: "nine-patch", message: "a nine-patch is at least 3 x 3 pixels")
        }
        let first = patch.animation == nil ? patch.storage : try patch.storage.frame(0)
        let pixels = try first.srgb8().withAlpha()
        let bytes = try pixels.packedBytes()
        let (width, height) = (pixels.width, pixels.height)
        /// Opaque black: a marker.
        func marked(_ x: Int, _ y: Int) -> Bool {
            let at = (y * width + x) * 4
            return bytes[at] == 0 && bytes[at + 1] == 0 && bytes[at + 2] == 0 && bytes[at + 3] == 255
        }
        func runs(_ count: Int, _ stretches: (Int) -> Bool) -> [Run] {
            var runs: [Run] = []
            var start = 1
            while start < count - 1 {
                let kind = stretches(start)
                var end = start + 1
                while end < count - 1, stretches(end) == kind { end += 1 }
                runs.append(Run(start: start, length: end - start, stretches: kind))
                start = end
            }
            return runs
        }
        columns = runs(width) { marked($0, 0) }
        rows = runs(height) { marked(0, $0) }
        let bottom = (1..<(width - 1)).filter { marked($0, height - 1) }
        let right = (1..<(height - 1)).filter { marked(width - 1, $0) }
        padding = (
            bottom.first.map { $0 - 1 } ?? 0, right.first.map { $0 - 1 } ?? 0,
            bottom.last.map { width - 2 - $0 } ?? 0, right.last.map { height - 2 - $0 } ?? 0
        )
        self.patch = KFCrossPlatformImage(storage: pixels, scale: 1, animation: nil, animatedImageData: nil)
    }

    /// `image` padded by ``padding`` on white, with the patch's inside stretched over it: fixed rows and columns
    /// keep their size, stretching ones share what is left in proportion to their size; every cell composited
    /// over the image (every frame).
    package func framing(_ image: KFCrossPlatformImage) throws(VipsError) -> KFCrossPlatformImage {
        let width = image.pixelWidth + padding.left + padding.right
        let height = image.pixelHeight + padding.top + padding.bottom
        let padded = try image.padding(
            toPixelWidth: width, height: height, color: .white, left: padding.left, top: padding.top)
        let columnSizes = Self.sizes(of: columns, filling: width)
        let rowSizes = Self.sizes(of: rows, filling: height)
        let source = patch.storage
        return try padded.mappingFrames { frame throws(VipsError) in
            var framed = try frame.srgb8()
            var y = 0
            for (row, rowHeight) in zip(rows, rowSizes) {
                var x = 0
                for (column, columnWidth) in zip(columns, columnSizes) {
                    if columnWidth > 0, rowHeight > 0, x + columnWidth <= width, y + rowHeight <= height {
                        let cell = try source.cropped(
                            x: column.start, y: row.start, width: column.length, height: row.length
                        ).resized(width: columnWidth, height: rowHeight)
                        framed = try framed.drawing(cell, x: x, y: y)
                    }
                    x += columnWidth
                }
                y += rowHeight
            }
            return framed
        }
    }

    /// Each run's size in a target of `length`: fixed runs keep theirs, stretching ones share the rest by their
    /// share of the stretching pixels, rounded half up (as thumbor's).
    private static func sizes(of runs: [Run], filling length: Int) -> [Int] {
        let stretching = runs.filter(\.stretches).reduce(0) { $0 + $1.length }
        let fixed = runs.filter { !$0.stretches }.reduce(0) { $0 + $1.length }
        let shared = max(0, length - fixed)
        return runs.map { run in
            run.stretches && stretching > 0
                ? Int(Double(run.length) / Double(stretching) * Double(shared) + 0.5) : run.length
        }
    }
}
