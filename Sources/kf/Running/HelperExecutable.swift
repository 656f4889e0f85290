import Foundation
import KfCommandKit
import Kingfisher

#if canImport(Glibc)
    import Glibc
#endif

/// The subcommands that live in executables of their own, so that `kf` links only libvips and the system's
/// libraries: `kf gallery` is `kf-gallery` (GTK 4), `kf view` is `kf-view` (libchafa). `kf` runs the one asked
/// for in its place, from beside its own executable or else from PATH.
enum HelperExecutable: String, CaseIterable {
    case gallery = "kf-gallery"
    case view = "kf-view"

    /// The `kf` subcommand it runs.
    var subcommand: String {
        switch self {
        case .gallery: "gallery"
        case .view: "view"
        }
    }

    /// What it needs, for the message when it is missing.
    private var needs: String {
        switch self {
        case .gallery: "the GTK 4 window"
        case .view: "the terminal view, drawn with libchafa"
        }
    }

    /// Its Debian package's file, as scripts/package names it beside kf's (`kf-gallery_0.1.0_amd64.deb`): the
    /// package has the helper's name, and kf's version, which it requires exactly.
    var packageFile: String {
        #if arch(x86_64)
            let architecture = "amd64"
        #elseif arch(arm64)
            let architecture = "arm64"
        #else
            let architecture = "ARCH"
        #endif
        return "\(rawValue)_\(KingfisherVersion.string)_\(architecture).deb"
    }

    /// The helper `arguments` (kf's own, without the program name) ask for, if any.
    static func asked(by arguments: [String]) -> HelperExecutable? {
        guard let first = arguments.first else { return nil }
        return allCases.first { $0.subcommand == first }
    }

    /// Where it is: beside the running `kf` (its real path, so a symlink to kf finds the helper kf came with),
    /// else the first executable of that name on PATH.
    func location() -> String? {
        var candidates: [String] = []
        if let own = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(
                URL(fileURLWithPath: own).deletingLastPathComponent().appendingPathComponent(rawValue).path)
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            candidates.append("\(directory)/\(rawValue)")
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Replaces this process with the helper, given `arguments` (what followed the subcommand's name). Returns
    /// only by throwing: when the helper is not installed, or cannot be started.
    func run(arguments: [String]) throws(CommandFailure) -> Never {
        guard let path = location() else {
            throw CommandFailure(
                "kf \(subcommand) runs \(rawValue) (\(needs)), which is not installed beside kf or on PATH: "
                    + "install its package, `apt-get install \(rawValue)` (or `apt-get install ./\(packageFile)`, "
                    + "made by scripts/package beside kf's); from a checkout, build it with "
                    + "`swift build -c release --product \(rawValue)` and put it beside kf")
        }
        fflush(nil)  // what kf wrote so far comes before the helper's output
        let argv = ([rawValue] + arguments).map { strdup($0) } + [nil]
        execv(path, argv)
        let reason = String(cString: strerror(errno))
        for argument in argv { free(argument) }
        throw CommandFailure("cannot run \(path): \(reason)")
    }
}
