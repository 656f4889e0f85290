import ArgumentParser
import KfCommandKit

/// `kf gallery`: listed in `kf --help`; runs `kf-gallery` (see ``HelperExecutable``).
struct GalleryLauncher: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gallery",
        abstract: "Show images in a window: a scrolling grid that loads what is on screen (GTK 4).",
        discussion: "Runs kf-gallery, installed beside kf or on PATH; `kf gallery --help` shows its options.")

    @Argument(parsing: .captureForPassthrough, help: "kf-gallery's arguments.")
    var arguments: [String] = []

    func run() throws { try HelperExecutable.gallery.run(arguments: arguments) }
}

/// `kf view`: listed in `kf --help`; runs `kf-view` (see ``HelperExecutable``).
struct ViewLauncher: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "view",
        abstract: "Show images in the terminal, loaded through the cache as an image view would.",
        discussion: "Runs kf-view, installed beside kf or on PATH; `kf view --help` shows its options.")

    @Argument(parsing: .captureForPassthrough, help: "kf-view's arguments.")
    var arguments: [String] = []

    func run() throws { try HelperExecutable.view.run(arguments: arguments) }
}
