import Foundation
import Kingfisher

/// Turns the image part of a thumbor URL into a Kingfisher source, as thumbor's loaders do: an `http(s)` URL is
/// fetched; a path is a file under the root directory when there is one, and otherwise fetched over `http://`
/// (thumbor's `http_loader`). With a root, a path that names no file there is fetched over `http://` too
/// (`file_loader_http_fallback`), unless the root is the only place (`file_loader`).
///
/// Files: absolute paths and `..` are refused, and so is a path whose real location (symlinks resolved) is outside
/// the root. With an S3 loader, a path is an object's key instead (see ``ImageServer/S3Loader``): fetched as an
/// `s3://` URL, through the source guard like any origin.
struct SourceLocator: Sendable {
    /// The root, its symlinks resolved.
    let root: URL?
    /// Whether a path that is no file under the root is fetched over `http://`.
    let fallsBackToHTTP: Bool
    /// Where a path names an object, when it does.
    let s3: ImageServer.S3Loader?

    init(rootDirectory: URL?, fallsBackToHTTP: Bool = true, s3: ImageServer.S3Loader? = nil) {
        root = rootDirectory?.standardizedFileURL.resolvingSymlinksInPath()
        self.fallsBackToHTTP = fallsBackToHTTP
        self.s3 = s3
    }

    func source(for image: String) throws(ImageServerError) -> Source {
        let lowered = image.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            guard let url = URL(string: image) ?? URL(string: Self.escaped(image)), url.host != nil else {
                throw .sourceNotAllowed
            }
            return .network(url)
        }
        if let s3 { return .network(try object(image, loader: s3).url) }
        if let root {
            do {
                return .provider(LocalFileImageDataProvider(fileURL: try file(image, in: root)))
            } catch .fileNotFound where fallsBackToHTTP && Self.startsWithHost(image) {
                // Not a file under the root, and it reads as an origin's host and path: fetched from there.
            }
        }
        guard let url = URL(string: "http://" + image) ?? URL(string: "http://" + Self.escaped(image)),
            url.host != nil
        else { throw .sourceNotAllowed }
        return .network(url)
    }

    /// The object a path names for the S3 loader: its key in the one bucket, or in the bucket its first part
    /// names, which must be one of the loader's (any other is refused, as a host off the allow-list is).
    private func object(_ path: String, loader: ImageServer.S3Loader) throws(ImageServerError) -> S3Location {
        var path = Substring(path)
        while path.hasPrefix("/") { path = path.dropFirst() }
        let bucket: String
        if loader.buckets.count == 1, let only = loader.buckets.first {
            bucket = only
        } else {
            let parts = path.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, loader.buckets.contains(String(parts[0])) else { throw .sourceNotAllowed }
            bucket = String(parts[0])
            path = parts[1]
        }
        let key = loader.keyPrefix.isEmpty ? String(path) : loader.keyPrefix + "/" + path
        guard !path.isEmpty, let location = S3Location(bucket: bucket, key: key) else { throw .fileNotFound }
        return location
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

    /// Whether `path` starts with something a host can be (a dotted name or address, `localhost`, either with a
    /// port) followed by a path: `127.0.0.1:8080/a.jpg`, `images.example.com/a.jpg`; not `photos/a.jpg` or
    /// `a.jpg`. Only such a path falls back to `http://`, so a missing file is still a plain `404`.
    static func startsWithHost(_ path: String) -> Bool {
        let parts = path.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[1].isEmpty else { return false }
        let hostAndPort = parts[0].split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(hostAndPort.count), let host = hostAndPort.first, !host.isEmpty else { return false }
        if hostAndPort.count == 2 {
            guard let port = Int(hostAndPort[1]), (1...65535).contains(port) else { return false }
        }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        let hostCharacters = host.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." }
        return hostCharacters && (host == "localhost" || (labels.count >= 2 && labels.allSatisfy { !$0.isEmpty }))
    }

    /// Spaces and other characters URL(string:) refuses, percent-encoded.
    private static func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlFragmentAllowed) ?? text
    }
}
