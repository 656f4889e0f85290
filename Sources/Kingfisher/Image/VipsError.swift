import Foundation

/// A failure inside libvips: the step Kingfisher was running and libvips' own message for it.
///
/// libvips keeps one process-wide error buffer. Kingfisher copies and clears it in one step after each failing
/// call, so a message never carries over to a later call; when two threads fail at the same moment, one message
/// may hold both threads' lines.
public struct VipsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What Kingfisher asked libvips to do, for example `"load JPEG"` or `"icc_transform"`.
    public let operation: String
    /// libvips' error text, trimmed.
    public let message: String
    /// The time limit in seconds the work was stopped at, when that is why it failed.
    let timeLimit: TimeInterval?

    public init(operation: String, message: String) {
        self.init(operation: operation, message: message, timeLimit: nil)
    }

    init(operation: String, message: String, timeLimit: TimeInterval?) {
        self.operation = operation
        self.message = message
        self.timeLimit = timeLimit
    }

    /// The operation of the error libvips' loading gives, when the library cannot be loaded.
    static let loadOperation = "load libvips"

    /// Whether libvips itself could not be loaded (not installed, or a broken file): every decode fails so. Ours.
    public var isLibvipsUnavailable: Bool { operation == Self.loadOperation }

    public var description: String {
        message.isEmpty ? "libvips \(operation) failed" : "libvips \(operation) failed: \(message)"
    }
}
