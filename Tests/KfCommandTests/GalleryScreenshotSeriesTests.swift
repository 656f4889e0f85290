import Foundation
import Kingfisher
import KingfisherTestSupport
import Testing

/// `kf gallery --screenshots` films the window without holding its frames up. In `GalleryCommandTests`' suite, which
/// runs one process at a time.
extension GalleryCommandTests {
    @Test func aSeriesOfALargeWindowNeverStopsItPainting() async throws {
        let scratch = try TempDir()
        let files = try (0..<12).map { index in
            let file = scratch.path("tile\(index).png")
            try Self.tile(index, width: 640, height: 480).write(to: URL(fileURLWithPath: file))
            return file
        }
        let window = files + ["--size", "900x640", "--cell", "200", "--transition", "fade:1"]
        // A shot of 900 x 640 costs more than the 30 ms between shots: those it is late for are skipped.
        let run = try await Kf.run(
            ["gallery"] + window + [
                "--cache-dir", scratch.path("cache"), "--report", scratch.path("report.json"),
                "--screenshots", scratch.path("film"), "--screenshot-every", "0.03", "--screenshot-until", "3",
            ])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try Self.report(scratch.path("report.json"))
        let frames = try #require(report["frames"] as? [String: Any])
        let shots = try #require(report["screenshots"] as? [String: Int], "\(report)")
        // Every shot's time is accounted for: 0 to 3 s every 0.03 s, each taken or skipped, each taken written.
        let written = try FileManager.default.contentsOfDirectory(atPath: scratch.path("film")).count
        #expect((shots["taken"] ?? 0) + (shots["skipped"] ?? 0) == 101, "\(shots)")
        #expect(written == shots["taken"] && written >= 1, "\(written) files, \(shots)")
        // The window painted on: at least every other frame took no shot, whatever a shot cost (a series of shots
        // written in one frame stopped it: 4 frames in 3 s, against 170 without shots on a quiet machine). The report
        // counts frames from the second (the first starts the clock and takes the first shot).
        let painted = frames["frames"] as? Int ?? 0
        #expect(painted >= 2 * written - 2, "\(frames), \(shots)")
    }
}
