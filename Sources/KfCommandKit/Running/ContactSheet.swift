package import Foundation
package import Kingfisher

/// A grid of labelled images in one PNG, drawn as SVG (each picture embedded as a PNG data URL, the labels as
/// text) and rendered by the library's SVG decoder.
package struct ContactSheet {
    package struct Cell {
        /// The picture; `nil` for a source that failed.
        package let image: KFCrossPlatformImage?
        /// Up to three short lines under the picture; the first is bold.
        package let lines: [String]
        /// Why the source failed, written where its picture would be.
        package var error: String? = nil

        package init(image: KFCrossPlatformImage?, lines: [String], error: String? = nil) {
            self.image = image
            self.lines = lines
            self.error = error
        }
    }

    package var title: String
    package var cells: [Cell]
    package var columns = 4
    package var pictureSize = CGSize(width: 240, height: 180)

    package init(title: String, cells: [Cell]) {
        self.title = title
        self.cells = cells
    }

    /// The rendered sheet.
    package func render() throws -> KFCrossPlatformImage {
        let svg = try markup()
        // The markup is kf's own, around images that are already decoded: the time limit that guards against
        // hostile SVG would only turn a moment of a loaded machine into a failure. Nothing else decodes meanwhile
        // (every caller draws its sheet after its retrievals), so lifting the process-wide limit is safe.
        let limit = ImageEngine.timeLimit
        ImageEngine.timeLimit = .unlimited
        defer { ImageEngine.timeLimit = limit }
        do {
            return try KFCrossPlatformImage(decoding: Data(svg.utf8))
        } catch {
            throw CommandFailure("the contact sheet could not be rendered: \(error.errorDescription ?? "")")
        }
    }

    private func markup() throws -> String {
        let padding = 16.0
        let labelHeight = 58.0
        let headerHeight = 56.0
        let cellWidth = pictureSize.width + padding
        let cellHeight = pictureSize.height + labelHeight + padding
        let rows = (cells.count + columns - 1) / columns
        let width = Double(columns) * cellWidth + padding
        let height = headerHeight + Double(rows) * cellHeight + padding
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" \
            width="\(Int(width))" height="\(Int(height))" font-family="DejaVu Sans, sans-serif">
            <rect width="100%" height="100%" fill="#f4f3ef"/>
            <text x="\(padding)" y="36" font-size="22" font-weight="bold" fill="#222">\(Self.escaped(title))</text>

            """
        for (index, cell) in cells.enumerated() {
            let x = padding + Double(index % columns) * cellWidth
            let y = headerHeight + Double(index / columns) * cellHeight
            guard let picture = cell.image else {
                svg += errorBox(cell.error ?? "failed", x: x, y: y)
                svg += labels(cell.lines, x: x, y: y)
                continue
            }
            let fitted = picture.kf.resize(to: pictureSize, for: .aspectFit)
            guard let png = fitted.kf.pngRepresentation() else {
                throw CommandFailure("the contact sheet could not encode a picture")
            }
            let w = Double(fitted.pixelWidth)
            let h = Double(fitted.pixelHeight)
            let left = x + (pictureSize.width - w) / 2
            let top = y + (pictureSize.height - h) / 2
            svg += """
                <rect x="\(x - 4)" y="\(y - 4)" width="\(pictureSize.width + 8)" height="\(pictureSize.height + 8)" \
                fill="url(#checker)" stroke="#d8d6cf"/>
                <image x="\(left)" y="\(top)" width="\(w)" height="\(h)" \
                xlink:href="data:image/png;base64,\(png.base64EncodedString())"/>

                """
            svg += labels(cell.lines, x: x, y: y)
        }
        // A checkerboard behind the pictures shows which parts are transparent.
        svg += """
            <defs><pattern id="checker" width="16" height="16" patternUnits="userSpaceOnUse">
            <rect width="16" height="16" fill="#ffffff"/><rect width="8" height="8" fill="#e4e2dc"/>
            <rect x="8" y="8" width="8" height="8" fill="#e4e2dc"/></pattern></defs>
            </svg>
            """
        return svg
    }

    /// The lines under a cell's picture.
    private func labels(_ lines: [String], x: Double, y: Double) -> String {
        var svg = ""
        for (line, text) in lines.prefix(3).enumerated() {
            let weight = line == 0 ? " font-weight=\"bold\"" : ""
            let baseline = y + pictureSize.height + 20 + Double(line) * 16
            svg += """
                <text x="\(x)" y="\(baseline)" font-size="12"\(weight) fill="#333">\(Self.escaped(text))</text>

                """
        }
        return svg
    }

    /// A failed source's place: a pale red box with its error, wrapped to the box.
    private func errorBox(_ message: String, x: Double, y: Double) -> String {
        var svg = """
            <rect x="\(x - 4)" y="\(y - 4)" width="\(pictureSize.width + 8)" height="\(pictureSize.height + 8)" \
            fill="#fbe9e7" stroke="#d8a39a"/>

            """
        let lines = Self.wrapped("error: " + message, width: Int(pictureSize.width / 7))
        for (index, line) in lines.prefix(Int(pictureSize.height / 16) - 1).enumerated() {
            svg += """
                <text x="\(x + 6)" y="\(y + 20 + Double(index) * 16)" font-size="12" fill="#8c1d18">\
                \(Self.escaped(line))</text>

                """
        }
        return svg
    }

    /// `text` broken into lines of at most `width` characters, at spaces where it can be.
    package static func wrapped(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            var word = Substring(word)
            while word.count > width {
                if !current.isEmpty {
                    lines.append(current)
                    current = ""
                }
                lines.append(String(word.prefix(width)))
                word = word.dropFirst(width)
            }
            if current.isEmpty {
                current = String(word)
            } else if current.count + 1 + word.count <= width {
                current += " " + word
            } else {
                lines.append(current)
                current = String(word)
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
