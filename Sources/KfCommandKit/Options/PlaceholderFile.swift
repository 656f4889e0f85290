import Foundation
package import Kingfisher

/// `--placeholder FILE`: an image file, read and decoded before anything is shown.
package enum PlaceholderFile {
    package static func load(_ path: String?) throws(CommandFailure) -> KFCrossPlatformImage? {
        guard let path else { return nil }
        guard let data = FileManager.default.contents(atPath: (path as NSString).expandingTildeInPath) else {
            throw CommandFailure("cannot read the placeholder \(path)")
        }
        do {
            return try KFCrossPlatformImage(decoding: data)
        } catch {
            throw CommandFailure("the placeholder \(path) is not an image: \(error.errorDescription ?? "")")
        }
    }
}
