import Foundation
package import Kingfisher

/// A SOURCE argument: an http(s) URL, an `s3://bucket/key`, a `file://` URL or a file path.
package struct SourceArgument: Hashable {
    /// What the user typed.
    package let text: String
    /// The source the manager retrieves.
    package let source: Source

    /// Reads `text`; throws a one-line message for anything that is neither a web URL nor a path.
    package init(_ text: String) throws(CommandFailure) {
        self.text = text
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw CommandFailure("an empty source") }
        if Self.scheme(of: trimmed) == "s3" {
            source = .network(try Self.object(trimmed).url)
        } else if let scheme = Self.scheme(of: trimmed) {
            guard let url = URL(string: trimmed) else { throw CommandFailure("\(text): not a valid URL") }
            switch scheme {
            case "http", "https":
                guard url.host?.isEmpty == false else { throw CommandFailure("\(text): the URL has no host") }
                source = .network(url)
            case "file":
                source = .provider(LocalFileImageDataProvider(fileURL: url))
            default:
                throw CommandFailure(
                    "\(text): unsupported scheme \"\(scheme)\" (use http, https, s3, file or a path)")
            }
        } else {
            let url = URL(fileURLWithPath: (trimmed as NSString).expandingTildeInPath)
            source = .provider(LocalFileImageDataProvider(fileURL: url.standardizedFileURL))
        }
    }

    /// The object `s3://bucket/key` names, its key as typed (as the AWS CLI reads it: `a b.jpg` is that key, and
    /// so is `a%20b.jpg` the key with a percent sign).
    private static func object(_ text: String) throws(CommandFailure) -> S3Location {
        let path = text.dropFirst("s3://".count)
        let parts = path.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let location = S3Location(bucket: String(parts[0]), key: String(parts[1])) else {
            throw CommandFailure("\(text): an S3 source is s3://BUCKET/KEY")
        }
        return location
    }

    /// The lower-cased scheme when `text` starts with one (`name:` followed by `//`); paths have none.
    private static func scheme(of text: String) -> String? {
        guard let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") else { return nil }
        let name = text[..<colon]
        guard let first = name.first, first.isLetter,
            name.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) })
        else { return nil }
        return name.lowercased()
    }

    /// The file name an output for this source starts with: the last path component without its extension.
    package var baseName: String {
        let url: URL? =
            switch source {
            case .network(let resource): resource.downloadURL
            case .provider: source.url ?? URL(fileURLWithPath: text)
            }
        var name = url.map { ($0.lastPathComponent as NSString).deletingPathExtension } ?? ""
        if name.isEmpty || name == "/" { name = url?.host ?? "image" }
        return name.replacingOccurrences(of: "/", with: "_")
    }

    package static func == (lhs: SourceArgument, rhs: SourceArgument) -> Bool { lhs.text == rhs.text }
    package func hash(into hasher: inout Hasher) { hasher.combine(text) }
}

/// A failure the command reports as one line (no stack trace) before exiting non-zero.
package struct CommandFailure: Error, CustomStringConvertible {
    package let description: String

    package init(_ description: String) { self.description = description }
}
