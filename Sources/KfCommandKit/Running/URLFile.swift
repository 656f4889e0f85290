import Foundation
import Kingfisher

/// A file of sources, one per line: http(s) or file URLs, or absolute paths. Blank lines and lines starting with
/// `#` are ignored; anything else is reported as a bad line.
package struct URLFile {
    /// The sources, in file order.
    package var sources: [SourceArgument] = []
    /// One message per line that is not a source: `FILE:LINE: reason`.
    package var badLines: [String] = []

    /// Reads `path` (`-` for standard input).
    package init(path: String) throws(CommandFailure) {
        let data: Data
        do {
            if path == "-" {
                data = FileHandle.standardInput.readDataToEndOfFile()
            } else {
                data = try Data(contentsOf: URL(fileURLWithPath: (path as NSString).expandingTildeInPath))
            }
        } catch {
            throw CommandFailure("cannot read the URL file \(path): \(FailureMessage.plain(error))")
        }
        let name = path == "-" ? "stdin" : path
        if let what = Self.notText(data) {
            throw CommandFailure(
                "the URL file \(name) is not text (\(what)): give a file with one URL or absolute path per line")
        }
        self.init(text: String(decoding: data, as: UTF8.self), name: name)
    }

    /// How many bad lines are named one by one before the rest are counted in one line.
    package static let namedBadLineLimit = 5

    /// The bad lines to print: the first ``namedBadLineLimit`` as they are, then one line counting the rest.
    package var shownBadLines: [String] {
        guard badLines.count > Self.namedBadLineLimit else { return badLines }
        let rest = badLines.count - Self.namedBadLineLimit
        return badLines.prefix(Self.namedBadLineLimit) + ["\(rest) more lines are not URLs or absolute paths"]
    }

    /// What `data` is when it is not a text file (an image, or bytes no text has), `nil` for text.
    private static func notText(_ data: Data) -> String? {
        let format = data.kf.imageFormat
        if format != .unknown { return "it is a \(format) image" }
        if data.contains(0) || String(validating: data, as: UTF8.self) == nil {
            return "it holds bytes no text file has"
        }
        return nil
    }

    package init(text: String, name: String) {
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let place = "\(name):\(index + 1)"
            guard line.contains("://") || line.hasPrefix("/") || line.hasPrefix("~/") else {
                badLines.append("\(place): not a URL or an absolute path: \(Self.shortened(line))")
                continue
            }
            do {
                sources.append(try SourceArgument(line))
            } catch {
                badLines.append("\(place): \(error.description)")
            }
        }
    }

    private static func shortened(_ line: String) -> String {
        line.count > 80 ? String(line.prefix(77)) + "..." : line
    }
}
