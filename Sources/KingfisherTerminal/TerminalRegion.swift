/// A rectangle of terminal cells, placed relative to the top left of a ``TerminalScreen``'s region.
public struct TerminalRegion: Sendable, Hashable {
    /// The first column, from 0.
    public var column: Int
    /// The first row, from 0.
    public var row: Int
    /// How many cells it spans.
    public var size: TerminalGridSize

    public init(column: Int = 0, row: Int = 0, size: TerminalGridSize) {
        self.column = column
        self.row = row
        self.size = size
    }

    /// `count` regions side by side in rows, filling `area` left to right, top to bottom, as near to square a
    /// grid as fits (4 give 2x2, 3 give 2 across and 2 down), one blank column between neighbours. Each is at
    /// least one cell in size.
    public static func grid(of count: Int, in area: TerminalGridSize) -> [TerminalRegion] {
        guard count > 0 else { return [] }
        var across = 1
        while across * across < count { across += 1 }
        let down = (count + across - 1) / across
        let width = max(1, (area.columns - (across - 1)) / across)
        let height = max(1, area.rows / down)
        return (0..<count).map { index in
            TerminalRegion(
                column: (index % across) * (width + 1), row: (index / across) * height,
                size: TerminalGridSize(columns: width, rows: height))
        }
    }
}
