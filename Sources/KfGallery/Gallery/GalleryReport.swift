import Foundation
import KfCommandKit
import Prometheus

/// `--report FILE`: what the gallery did, as JSON, for tests and benchmarks.
struct GalleryReport: Encodable {
    var counts: GalleryCounts
    var frames: FrameTimes.Summary
    /// Images decoded (from downloads, disk, files or cached originals), as the library's metrics counted them.
    var imagesDecoded: Int
    var tiles: Int
    /// Each loaded source's image size in pixels (`WxH`), by the source as given.
    var imagePixels: [String: String]
    /// The `--screenshots` series: shots taken and skipped (`nil` without one).
    var screenshots: ScreenshotSeries.Counts?
    /// The process's peak resident memory.
    var peakRSSMegabytes = Self.peakRSSMegabytes()

    func write(to url: URL) throws(CommandFailure) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            try encoder.encode(self).write(to: url)
        } catch {
            throw CommandFailure("cannot write the report \(url.path): \(FailureMessage.plain(error))")
        }
    }

    /// The counts of `kingfisher_processing_duration_seconds` in `registry` for the stages that decode
    /// (everything but `encode` and `header`, which decode nothing).
    static func decodes(in registry: PrometheusCollectorRegistry) -> Int {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        let prefix = "kingfisher_processing_duration_seconds_count{"
        return String(decoding: buffer, as: UTF8.self).split(separator: "\n").reduce(0) { total, line in
            guard line.hasPrefix(prefix), !line.contains("stage=\"encode\""), !line.contains("stage=\"header\""),
                let value = line.split(separator: " ").last.flatMap({ Double($0) })
            else { return total }
            return total + Int(value)
        }
    }

    /// `VmHWM` from `/proc/self/status`, in MB; 0 where there is none.
    static func peakRSSMegabytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return 0 }
        return kilobytes / 1024
    }
}
