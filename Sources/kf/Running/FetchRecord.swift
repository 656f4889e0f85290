import Foundation
import KfCommandKit

/// One source's outcome, as printed by `--json` (one object per line; absent values are `null`).
struct FetchRecord: Encodable {
    var source: String
    var output: String?
    var width: Int?
    var height: Int?
    var format: String?
    var bytes: Int?
    var cacheType: String?
    var milliseconds: Double
    var error: String?
    /// Why the result is not in the disk cache, when its write failed (the result itself may be fine).
    var cacheError: String?
    /// How a network image was validated, when the run followed the servers' caching headers: `fresh`,
    /// `revalidated`, `fetched` (nothing was cached), `refetched` (a cached entry was replaced) or `stale`.
    var validation: String?

    private enum CodingKeys: String, CodingKey {
        case source, output, width, height, format, bytes, cacheType, milliseconds, error, cacheError, validation
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(source, forKey: .source)
        try container.encode(output, forKey: .output)
        try container.encode(width, forKey: .width)
        try container.encode(height, forKey: .height)
        try container.encode(format, forKey: .format)
        try container.encode(bytes, forKey: .bytes)
        try container.encode(cacheType, forKey: .cacheType)
        try container.encode((milliseconds * 10).rounded() / 10, forKey: .milliseconds)
        try container.encode(error, forKey: .error)
        try container.encode(cacheError, forKey: .cacheError)
        try container.encode(validation, forKey: .validation)
    }

    /// The record as one line of JSON.
    var jsonLine: String { Console.jsonLine(self) }

    /// The record as a line a person reads.
    var textLine: String {
        if let error { return "error: \(source): \(error)" }
        let size = width.flatMap { w in height.map { "\(w)x\($0)" } } ?? "?"
        let place = output.map { " -> \($0)" } ?? ""
        let kind = [
            format, bytes.map { "\($0) bytes" }, cacheType.map { "from \($0 == "none" ? "source" : $0)" }, validation,
        ]
        .compactMap { $0 }.joined(separator: ", ")
        return "\(source)\(place) (\(size), \(kind), \(ProgressReporter.format(milliseconds, digits: 0)) ms)"
    }
}
