package import Foundation
import Kingfisher

/// A thumbor URL whose geometry asks for a smaller image than the source decodes it shrunk on load: the workers
/// need not admit a large source's decode one at a time when the decode holds a few rows.
extension ThumborProcessor: ShrinksOnLoad {
    package func shrinkOnLoadSide(for data: Data, scale: CGFloat) -> Int? {
        shrinkOnLoadBox(for: data).map { Int(min($0.side, CGFloat(Int32.max))) }
    }
}
