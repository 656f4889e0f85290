import Foundation

// Processor identifiers become cache keys, so sizes and points are written the same way on every platform:
// Apple's `"(10.0, 20.0)"`, not Linux Foundation's `"CGSize(width: 10.0, height: 20.0)"`.

extension CGSize {
    var identifierDescription: String { "(\(width), \(height))" }
}

extension CGPoint {
    var identifierDescription: String { "(\(x), \(y))" }
}
