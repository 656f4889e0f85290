import ArgumentParser
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
            FetchCommand.self, PrefetchCommand.self, InfoCommand.self, CacheCommand.self, ViewCommand.self,
            DemoCommand.self, ServeCommand.self, GalleryCommand.self,
        ])

    /// Tunes malloc, then parses and runs the subcommand (ArgumentParser's own `main`, with that step first).
    static func main() async {
        MemoryTuning.apply()
        do {
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
