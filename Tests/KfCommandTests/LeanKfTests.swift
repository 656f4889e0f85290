import Foundation
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

    @Test("kf links libvips and nothing of GTK or libchafa; kf-gallery links GTK 4, kf-view libchafa")
    func linkedLibrariesAreSplit() async throws {
        let kf = try await linkedLibraries(Kf.executable)
        #expect(kf.contains { $0.hasPrefix("libvips.so") }, "\(kf)")
        // (libgdk_pixbuf is libvips' own, for SVG)
        #expect(
            !kf.contains { $0.hasPrefix("libgtk") || $0.hasPrefix("libgraphene") || $0.hasPrefix("libchafa") }, "\(kf)")
        let gallery = try await linkedLibraries(Kf.product("kf-gallery"))
        #expect(gallery.contains { $0.hasPrefix("libgtk-4.so") }, "\(gallery)")
        let view = try await linkedLibraries(Kf.product("kf-view"))
        #expect(view.contains { $0.hasPrefix("libchafa.so") }, "\(view)")
        #expect(!view.contains { $0.hasPrefix("libgtk") }, "\(view)")
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
