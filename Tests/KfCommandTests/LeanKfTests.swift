import Foundation
import Kingfisher
import Testing

/// `kf` links libvips and the system's libraries only; the GTK window and the terminal view are executables of
/// their own, which `kf gallery` and `kf view` run.
@Suite("A lean kf: GTK and libchafa live in kf-gallery and kf-view", .timeLimit(.minutes(2)))
struct LeanKfTests {
    /// The shared libraries `binary` loads, by file name (`ldd`'s first column).
    private func linkedLibraries(_ binary: URL) async throws -> [String] {
        let run = try await Kf.run([binary.path], executable: URL(fileURLWithPath: "/usr/bin/ldd"))
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdoutLines.compactMap {
            $0.trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init)
        }
    }

    @Test("kf links neither libvips nor anything of GTK or libchafa; kf-gallery links GTK 4, kf-view libchafa")
    func linkedLibrariesAreSplit() async throws {
        let kf = try await linkedLibraries(Kf.executable)
        // libvips is loaded when first needed (see the next test), and with it its libraries (libgdk_pixbuf, for SVG)
        #expect(!kf.contains { $0.hasPrefix("libvips.so") || $0.hasPrefix("libgdk_pixbuf") }, "\(kf)")
        #expect(
            !kf.contains { $0.hasPrefix("libgtk") || $0.hasPrefix("libgraphene") || $0.hasPrefix("libchafa") }, "\(kf)")
        let gallery = try await linkedLibraries(Kf.product("kf-gallery"))
        #expect(gallery.contains { $0.hasPrefix("libgtk-4.so") }, "\(gallery)")
        let view = try await linkedLibraries(Kf.product("kf-view"))
        #expect(view.contains { $0.hasPrefix("libchafa.so") }, "\(view)")
        #expect(!view.contains { $0.hasPrefix("libgtk") }, "\(view)")
    }

    @Test("kf loads libvips when a command first needs pixels, and names its version without starting it")
    func libvipsIsLoadedWhenFirstNeeded() async throws {
        let dir = try TempDir()
        let photo = dir.url.appendingPathComponent("p.png")
        try Samples.coordinatePNG(width: 40, height: 30).write(to: photo)
        // The dynamic loader names each library it opens, and who opened it.
        let loader = ["LD_DEBUG": "files"]
        let help = try await Kf.run(["cache", "--help"], environment: loader)
        #expect(help.status == 0)
        #expect(!help.stderr.contains("libvips.so"), "\(help.stderr.suffix(400))")
        let version = try await Kf.run(["--version"], environment: loader)
        #expect(version.stdout.contains("libvips 8."), "\(version.stdout)")
        #expect(!version.stderr.contains("/vips-modules-"), "naming the version does not start libvips")
        let fetch = try await Kf.run(
            ["fetch", photo.path, "--format", "jpeg", "--no-cache", "--output", dir.path("out")],
            environment: loader)
        #expect(fetch.status == 0, "\(fetch.stderr.suffix(400))")
        #expect(
            fetch.stderrLines.contains { $0.contains("libvips.so.42") && $0.contains("dynamically loaded") },
            "\(fetch.stderr.suffix(400))")
        #expect(
            try KFCrossPlatformImage(decoding: Data(contentsOf: dir.url.appendingPathComponent("out/p.jpg"))).size
                == CGSize(width: 40, height: 30))
    }

    @Test("kf view and kf gallery hand every argument to their executables, --help included")
    func helpersGetTheirArguments() async throws {
        let view = try await Kf.run(["view", "--help"])
        #expect(view.status == 0 && view.stdout.contains("USAGE: kf view"), "\(view.stdout)")
        #expect(view.stdout.contains("--placeholder"), "kf-view's own options")
        let gallery = try await Kf.run(["gallery", "--help"])
        #expect(gallery.status == 0 && gallery.stdout.contains("--scroll-through"), "\(gallery.stdout)")
        let listed = try await Kf.run(["--help"])
        #expect(listed.stdout.contains("gallery") && listed.stdout.contains("view"), "\(listed.stdout)")
    }

    @Test("without kf-gallery beside kf or on PATH, kf gallery says what to install")
    func aMissingHelperIsAClearError() async throws {
        let scratch = try TempDir()
        let alone = scratch.url.appendingPathComponent("kf")
        try FileManager.default.copyItem(at: Kf.executable, to: alone)
        let run = try await Kf.run(
            ["gallery", "photo.jpg"], environment: ["PATH": scratch.url.path], executable: alone)
        #expect(run.status != 0)
        #expect(run.stderr.contains("kf-gallery") && run.stderr.contains("not installed"), "\(run.stderr)")
        #expect(run.stderr.contains("--product kf-gallery"), "how to build it: \(run.stderr)")
    }
}
