import Foundation
import Kingfisher
import Testing

@Suite("kf demo and --help")
struct DemoAndHelpTests {
    @Test("demo runs offline, writes a contact sheet, and its second round comes from the disk cache")
    func demo() async throws {
        let dir = try TempDir()
        let run = try await Kf.run(["demo"], in: dir.url)
        #expect(run.status == 0, "\(run.stderr)")
        let sheet = try KFCrossPlatformImage(
            decoding: Data(contentsOf: dir.url.appendingPathComponent("kf-demo/contact-sheet.png")))
        #expect(sheet.pixelWidth > 800 && sheet.pixelHeight > 800)
        let results = try FileManager.default.contentsOfDirectory(atPath: dir.path("kf-demo/results"))
        #expect(results.count == 16)
        #expect(results.contains { $0.hasSuffix(".gif") } && results.contains { $0.hasSuffix(".jpg") })
        #expect(run.stdout.contains("3 HTTP requests"))
        #expect(run.stdout.contains("16 of 16 served from the disk cache"))
        #expect(run.stdout.contains("0 HTTP requests"))
    }

    @Test(
        "every subcommand has --help",
        arguments: [
            [], ["fetch"], ["prefetch"], ["info"], ["cache"], ["cache", "info"], ["cache", "clean"],
            ["cache", "clear"], ["demo"],
        ])
    func help(_ command: [String]) async throws {
        let run = try await Kf.run(command + ["--help"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("USAGE:"))
    }

    @Test("--version names the library and libvips")
    func version() async throws {
        let run = try await Kf.run(["--version"])
        #expect(run.stdout.contains("kf \(KingfisherVersion.string)"))
        #expect(run.stdout.contains("libvips 8."))
    }
}
