public import Foundation

/// A size in terminal character cells.
public struct TerminalGridSize: Sendable, Hashable, CustomStringConvertible {
    /// Cells across.
    public var columns: Int
    /// Cells down.
    public var rows: Int

    public init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
    }

    /// Reads `COLSxROWS`, as `80x24`; `nil` unless both are positive whole numbers.
    public init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let columns = Int(parts[0]), let rows = Int(parts[1]), columns > 0, rows > 0
        else { return nil }
        self.init(columns: columns, rows: rows)
    }

    /// 80 columns by 24 rows: what to assume when a terminal reports no size.
    public static let fallback = TerminalGridSize(columns: 80, rows: 24)

    /// The size of the terminal `fileDescriptor` writes to; `nil` when it is not a terminal or reports no size
    /// (`0x0`, as some serial consoles and containers do).
    public static func current(of fileDescriptor: Int32 = STDOUT_FILENO) -> TerminalGridSize? {
        var window = winsize()
        let status = withUnsafeMutablePointer(to: &window) { ioctl(fileDescriptor, UInt(TIOCGWINSZ), $0) }
        guard status == 0, window.ws_col > 0, window.ws_row > 0 else { return nil }
        return TerminalGridSize(columns: Int(window.ws_col), rows: Int(window.ws_row))
    }

    public var description: String { "\(columns)x\(rows)" }
}
