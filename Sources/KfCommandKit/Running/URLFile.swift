import Foundation

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
        self.init(text: String(decoding: data, as: UTF8.self), name: path == "-" ? "stdin" : path)
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
