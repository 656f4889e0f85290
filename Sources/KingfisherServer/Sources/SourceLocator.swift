import Foundation
import Kingfisher

/// Turns the image part of a thumbor URL into a Kingfisher source: an `http(s)` URL is fetched; a path is a file
/// under the root directory when there is one, and otherwise fetched over `http://` (thumbor's default loader).
///
/// Files: absolute paths and `..` are refused, and so is a path whose real location (symlinks resolved) is outside
/// the root.
struct SourceLocator: Sendable {
    /// The root, its symlinks resolved.
    let root: URL?

    init(rootDirectory: URL?) {
        root = rootDirectory?.standardizedFileURL.resolvingSymlinksInPath()
    }

    func source(for image: String) throws(ImageServerError) -> Source {
        let lowered = image.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            guard let url = URL(string: image) ?? URL(string: Self.escaped(image)), url.host != nil else {
                throw .sourceNotAllowed
            }
            return .network(url)
        }
        if let root {
            return .provider(LocalFileImageDataProvider(fileURL: try file(image, in: root)))
        }
        guard let url = URL(string: "http://" + image) ?? URL(string: "http://" + Self.escaped(image)),
            url.host != nil
        else { throw .sourceNotAllowed }
        return .network(url)
    }

    private func file(_ path: String, in root: URL) throws(ImageServerError) -> URL {
        guard !path.hasPrefix("/"), !path.hasPrefix("~"), !path.contains("\0") else { throw .pathOutsideRoot }
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        guard !components.isEmpty, !components.contains(where: { $0 == ".." || $0 == "." }) else {
            throw .pathOutsideRoot
        }
        let candidate = components.reduce(root) { $0.appendingPathComponent(String($1)) }
        guard FileManager.default.fileExists(atPath: candidate.path) else { throw .fileNotFound }
        let real = candidate.resolvingSymlinksInPath()
        guard real.path.hasPrefix(root.path.hasSuffix("/") ? root.path : root.path + "/") else {
            throw .pathOutsideRoot
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: real.path, isDirectory: &isDirectory), !isDirectory.boolValue
        else { throw .fileNotFound }
        return real
    }

    /// Spaces and other characters URL(string:) refuses, percent-encoded.
    private static func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlFragmentAllowed) ?? text
    }
}
