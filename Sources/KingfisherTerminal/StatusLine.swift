import Kingfisher

/// The text of a ``TerminalImageView``'s status line.
enum StatusLine {
    /// The spinner's frames, one per tick.
    static let spinner: [Character] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

    /// A spinner frame and "loading", with the percentage and byte counts once the total is known:
    /// `⠙ loading 42% (12 KB of 29 KB)`.
    static func loading(_ state: IndicatorState, tick: Int) -> String {
        var text = "\(spinner[tick % spinner.count]) loading"
        if let fraction = state.fractionCompleted {
            text += " \(Int((fraction * 100).rounded(.down)))% (\(kilobytes(state.receivedSize)) of "
            text += "\(kilobytes(state.totalSize)))"
        } else if state.receivedSize > 0 {
            text += " \(kilobytes(state.receivedSize))"
        }
        return text
    }

    /// `text` cut to `width` characters, an ellipsis marking the cut.
    static func fitted(_ text: String, width: Int) -> String {
        guard width > 0 else { return "" }
        guard text.count > width else { return text }
        return String(text.prefix(width - 1)) + "…"
    }

    private static func kilobytes(_ bytes: Int64) -> String {
        "\((bytes + 1023) / 1024) KB"
    }
}
