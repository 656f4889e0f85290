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
        version: "kf \(KingfisherVersion.string) (libvips \(ImageEngine.libvipsVersion))",
        subcommands: [
            FetchCommand.self, PrefetchCommand.self, InfoCommand.self, CacheCommand.self, ViewLauncher.self,
            DemoCommand.self, ServeCommand.self, GalleryLauncher.self,
        ])

    /// Hands `gallery` and `view` to their executables; otherwise tunes malloc, then parses and runs the subcommand
    /// (ArgumentParser's own `main`, with those steps first).
    static func main() async {
        do {
            // `kf gallery ...` and `kf view ...` are other executables: they get every argument, --help included.
            let arguments = Array(CommandLine.arguments.dropFirst())
            if let helper = HelperExecutable.asked(by: arguments) {
                try helper.run(arguments: Array(arguments.dropFirst()))
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
