import Foundation
import Kingfisher
import KingfisherTestSupport
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

    /// Without a libvips to load (faked: a broken libvips.so.42 first on the library path, as the machine's cannot
    /// be uninstalled for a test), kf starts, keeps original bytes (their headers are read in Swift), and a decode
    /// fails saying what is missing.
    @Test("without a loadable libvips kf starts, prefetches originals, and says why it cannot decode")
    func withoutLibvips() async throws {
        let dir = try TempDir()
        let libraries = dir.url.appendingPathComponent("lib")
        try FileManager.default.createDirectory(at: libraries, withIntermediateDirectories: true)
        try Data("not a library".utf8).write(to: libraries.appendingPathComponent("libvips.so.42"))
        let broken = ["LD_LIBRARY_PATH": libraries.path]
        let version = try await Kf.run(["--version"], environment: broken)
        #expect(version.status == 0 && version.stdout.contains("libvips not installed"), "\(version.stdout)")
        let server = try await TestHTTPServer.start()
        let jpeg = try Samples.jpeg(width: 80, height: 60)
        server.route("/p.jpg", .ok(jpeg, contentType: "image/jpeg"))
        let prefetch = try await Kf.run(
            ["prefetch", "--url-file", "-", "--original", "--cache-dir", dir.path("cache")],
            stdin: server.url("/p.jpg").absoluteString + "\n", environment: broken)
        #expect(prefetch.status == 0, "\(prefetch.stderr)")
        let photo = dir.url.appendingPathComponent("p.jpg")
        try jpeg.write(to: photo)
        let fetch = try await Kf.run(
            ["fetch", photo.path, "--format", "png", "--no-cache", "--output", dir.path("out")], environment: broken)
        #expect(fetch.status != 0)
        #expect(
            fetch.stderr.contains("libvips could not be loaded") && fetch.stderr.contains("libvips42"),
            "\(fetch.stderr)")
        try await server.shutdown()
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

    @Test(
        "without its executable beside kf or on PATH, kf gallery and kf view name the package to install",
        arguments: [("gallery", "kf-gallery"), ("view", "kf-view")])
    func aMissingHelperIsAClearError(subcommand: String, helper: String) async throws {
        let scratch = try TempDir()
        let alone = scratch.url.appendingPathComponent("kf")
        try FileManager.default.copyItem(at: Kf.executable, to: alone)
        let run = try await Kf.run(
            [subcommand, "photo.jpg"], environment: ["PATH": scratch.url.path], executable: alone)
        #expect(run.status != 0)
        #expect(run.stderr.contains(helper) && run.stderr.contains("not installed"), "\(run.stderr)")
        #expect(run.stderr.contains("apt-get install \(helper)`"), "the package to install: \(run.stderr)")
        #expect(
            run.stderr.contains("apt-get install ./\(helper)_\(KingfisherVersion.string)_"),
            "the file scripts/package makes: \(run.stderr)")
        #expect(run.stderr.contains("--product \(helper)"), "how to build it in a checkout: \(run.stderr)")
    }
}
