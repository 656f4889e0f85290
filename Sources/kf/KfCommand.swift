import ArgumentParser
import KfCommandKit
import Kingfisher

/// `kf`: Kingfisher's image pipeline from a shell.
@main
struct KfCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kf",
        abstract: "Download, cache, process and inspect images with Kingfisher for Linux.",
        discussion: "Start with `kf demo`: it needs no network and writes kf-demo/contact-sheet.png.",
        // ArgumentParser builds this for every run: `--version` itself is answered in `main` (`versionLine`).
        version: "kf \(KingfisherVersion.string)",
        subcommands: [
            FetchCommand.self, PrefetchCommand.self, InfoCommand.self, CacheCommand.self, ViewLauncher.self,
            DemoCommand.self, ServeCommand.self, GalleryLauncher.self,
        ])

    /// What `kf --version` prints: kf's version and the version of the libvips it loads (or "not installed"). Only
    /// this looks for libvips before a command needs pixels.
    static var versionLine: String {
        "kf \(KingfisherVersion.string) (libvips \(ImageEngine.libvipsVersion))"
    }

    /// Hands `gallery` and `view` to their executables; otherwise tunes malloc, then parses and runs the subcommand
    /// (ArgumentParser's own `main`, with those steps first).
    static func main() async {
        do {
            // `kf gallery ...` and `kf view ...` are other executables: they get every argument, --help included.
            let arguments = Array(CommandLine.arguments.dropFirst())
            if let helper = HelperExecutable.asked(by: arguments) {
                try helper.run(arguments: Array(arguments.dropFirst()))
            }
            if arguments == ["--version"] {
                print(versionLine)
                return
            }
            MemoryTuning.apply()
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
