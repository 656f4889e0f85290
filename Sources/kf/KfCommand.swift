import ArgumentParser
import Foundation
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
            if let unknown = UnknownSubcommand(arguments: arguments, known: subcommandNames) {
                Console.error(unknown.message)
                Foundation.exit(ExitCode.validationFailure.rawValue)
            }
            MemoryTuning.apply()
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            guard code == .validationFailure else { exit(withError: error) }
            // A flag's error says what is wrong and where the help is, without the long generic usage line.
            Console.error(withoutUsage(fullMessage(for: error)))
            Foundation.exit(code.rawValue)
        }
    }

    /// Every subcommand's name, aliases included.
    private static var subcommandNames: [String] {
        ["help"] + configuration.subcommands.flatMap { [$0._commandName] + $0.configuration.aliases }
    }

    /// ArgumentParser's message without its `Usage: ...` lines (kept: the error and "See 'kf X --help'").
    static func withoutUsage(_ message: String) -> String {
        var lines: [Substring] = []
        var inUsage = false
        for line in message.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("Usage: ") {
                inUsage = true
                continue
            }
            if inUsage && line.hasPrefix("  See '") { inUsage = false }
            if !inUsage { lines.append(line) }
        }
        return lines.joined(separator: "\n")
    }
}
