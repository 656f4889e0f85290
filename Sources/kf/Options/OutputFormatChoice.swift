import ArgumentParser
import Foundation
import Kingfisher

/// What `--format` and `-o FILE`'s extension ask for together, the way ImageMagick, vips and Pillow read them:
/// without `--format`, the extension chooses the format; an extension kf cannot write is an error naming those it
/// can; a `--format` that contradicts the extension is an error. A result nothing processes keeps the source's
/// bytes whenever they already are in the format asked for.
struct OutputFormatChoice: Equatable {
    /// How results are encoded, in the cache and in the output (`original`: the source's format).
    let format: OutputFormat
    /// What the output file's format must be when the source's format is kept (`format == .original`).
    let rule: OutputRule

    /// What happens to a result kept in the source's format before it is written.
    enum OutputRule: Equatable {
        /// Written as it is.
        case asIs
        /// Converted into this format when it is in another (`-o photo.png` of a JPEG, nothing processing it).
        case convert(OutputFormat)
        /// Must already be in this format (`--format original -o photo.jpg`); anything else fails its source.
        case require(OutputFormat)
    }

    /// Extensions of image formats kf reads but cannot write, named as such in errors.
    static let readOnlyImageExtensions: Set<String> = [
        "bmp", "tif", "tiff", "heic", "heif", "svg", "ico", "jxl", "jp2",
    ]

    /// The formats `-o` takes, for messages: `png, jpg (jpeg), gif, webp, avif`.
    static let writableExtensions = "png, jpg (jpeg), gif, webp or avif"

    /// Reads `--format` (`nil` when not given) and the `-o` argument (`nil` without `-o`); `processes` says whether
    /// any processing flag is given.
    init(format: OutputFormat?, outputFile: String?, processes: Bool) throws(ValidationError) {
        let pathExtension = Self.pathExtension(of: outputFile)
        let named = pathExtension.flatMap(OutputFormat.init(pathExtension:))
        let readOnly = pathExtension.map { Self.readOnlyImageExtensions.contains($0) } ?? false
        switch (format, named) {
        case (.some(.original), .some(let named)):
            self.init(format: .original, rule: .require(named))
        case (.some(let format), .some(let named)):
            guard format == named else {
                throw ValidationError(
                    "--format \(format.rawValue) contradicts -o \(outputFile ?? ""), whose extension names "
                        + "\(named.rawValue); leave out one of them, or name the file .\(format.rawValue)")
            }
            self.init(format: format, rule: .asIs)
        case (.some(let format), .none):
            if readOnly, format != .original, let pathExtension {
                throw ValidationError(
                    "--format \(format.rawValue) contradicts -o \(outputFile ?? ""): kf cannot write "
                        + "\(pathExtension.uppercased()) files")
            }
            self.init(format: format, rule: .asIs)
        case (.none, .some(let named)):
            // Nothing to process: the source's bytes are kept when they are in that format already.
            self = processes ? Self(format: named, rule: .asIs) : Self(format: .original, rule: .convert(named))
        case (.none, .none):
            if let pathExtension {
                let what = readOnly ? "\(pathExtension.uppercased()) files" : "files named .\(pathExtension)"
                throw ValidationError(
                    "kf cannot write \(what): -o takes \(Self.writableExtensions) (or --format with any name, or "
                        + "no extension to keep the source's format)")
            }
            self.init(format: .original, rule: .asIs)
        }
    }

    private init(format: OutputFormat, rule: OutputRule) {
        self.format = format
        self.rule = rule
    }

    /// The lowercased extension of `path` (`nil` without one, and for `-`, standard output).
    private static func pathExtension(of path: String?) -> String? {
        guard let path, path != "-" else { return nil }
        let pathExtension = (path as NSString).pathExtension.lowercased()
        return pathExtension.isEmpty ? nil : pathExtension
    }
}
