import Foundation
import Kingfisher

/// `kf view -o FILE`: the sources as one PNG instead of on a terminal: the image itself (its first frame) for one
/// source, a contact sheet for several.
struct ViewSnapshot {
    let manager: KingfisherManager

    /// Retrieves every source and writes the PNG to `url`; a source that fails is reported on stderr and left
    /// out. Returns how many failed; nothing is written when all did.
    func write(_ sources: [String], to url: URL) async throws -> Int {
        var cells: [ContactSheet.Cell] = []
        for text in sources {
            do {
                let image = try await manager.retrieveImage(with: try SourceArgument(text).source).image
                cells.append(
                    ContactSheet.Cell(image: image, lines: [text, "\(image.pixelWidth)x\(image.pixelHeight)"]))
            } catch let error as KingfisherError {
                Console.error("error: \(text): \(error.errorDescription ?? "\(error)")")
            } catch {
                Console.error("error: \(error)")
            }
        }
        let failures = sources.count - cells.count
        guard !cells.isEmpty else { return failures }
        let image = sources.count == 1 ? cells[0].image : try ContactSheet(title: "kf view", cells: cells).render()
        guard let png = image.kf.pngRepresentation() else {
            throw CommandFailure("the PNG for \(url.path) could not be encoded")
        }
        do {
            try png.write(to: url, options: .atomic)
        } catch {
            throw CommandFailure("cannot write \(url.path): \(error.localizedDescription)")
        }
        return failures
    }
}
