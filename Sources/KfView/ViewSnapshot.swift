import Foundation
import KfCommandKit
import Kingfisher

/// `kf view -o FILE`: the sources as one PNG instead of on a terminal: the image itself (its first frame) for one
/// source, a contact sheet for several, where a source that failed has a cell with its error, as on a terminal.
struct ViewSnapshot {
    let manager: KingfisherManager

    /// Retrieves every source and writes the PNG to `output`; each source that fails is reported on stderr too.
    /// Returns how many failed; nothing is written when all did.
    func write(_ sources: [String], to output: OutputFile) async throws -> Int {
        var cells: [ContactSheet.Cell] = []
        var failures = 0
        for text in sources {
            do {
                let image = try await manager.retrieveImage(with: try SourceArgument(text).source).image
                cells.append(
                    ContactSheet.Cell(image: image, lines: [text, "\(image.pixelWidth)x\(image.pixelHeight)"]))
            } catch {
                failures += 1
                let reason = FailureMessage.reason(error, source: text)
                Console.error("error: \(text): \(reason)")
                cells.append(ContactSheet.Cell(image: nil, lines: [text], error: reason))
            }
        }
        guard failures < sources.count else { return failures }
        let image: KFCrossPlatformImage
        if sources.count == 1, let only = cells[0].image {
            image = only
        } else {
            image = try ContactSheet(title: "kf view", cells: cells).render()
        }
        guard let png = image.kf.pngRepresentation() else {
            throw CommandFailure("the PNG for \(output.argument) could not be encoded")
        }
        try output.write(png)
        return failures
    }
}
