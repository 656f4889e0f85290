/// An image rendered for a terminal: the text that draws it, and the cells it covers.
public struct TerminalPicture: Sendable, Equatable {
    /// The rows of a symbols rendering, each starting with its own colours and ending with a reset; for sixel
    /// or kitty graphics, one element holding the whole sequence (it covers ``size`` from the cursor).
    public var lines: [String]
    /// The cells it covers.
    public var size: TerminalGridSize
    /// Whether ``lines`` is a graphics sequence rather than rows of symbols.
    public var isGraphics: Bool

    public init(lines: [String], size: TerminalGridSize, isGraphics: Bool) {
        self.lines = lines
        self.size = size
        self.isGraphics = isGraphics
    }
}
