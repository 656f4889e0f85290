public import Foundation
import Synchronization
import KingfisherLocking

/// Where terminal views draw: a file handle (standard output by default) and a region of rows reserved on it.
///
/// The region starts on the line the cursor is on when ``reserve(rows:)`` runs; views place their text in it
/// relative to that line (the cursor is saved there and restored before every piece), so it works without knowing
/// where on the screen the region is. Every ``write(_:)`` goes out in one piece: views drawing from several
/// threads never interleave.
///
/// ```swift
/// let screen = TerminalScreen()
/// screen.reserve(rows: 24)
/// let view = TerminalImageView(screen: screen, region: TerminalRegion(size: TerminalGridSize(columns: 80, rows: 24)))
/// ```
public final class TerminalScreen: Sendable {
    private let fileHandle: Locked<FileHandle>
    private let reservedRows = Atomic<Int>(0)

    /// A screen writing to `fileHandle`.
    public init(fileHandle: FileHandle = .standardOutput) {
        self.fileHandle = Locked(fileHandle)
    }

    /// The rows reserved so far; 0 before ``reserve(rows:)``.
    public var rows: Int { reservedRows.load(ordering: .acquiring) }

    /// Makes room for `rows` rows from the cursor's line down (scrolling the terminal when needed), saves the
    /// cursor at the start of the first and hides it. Call once, before views draw.
    public func reserve(rows: Int) {
        let rows = max(1, rows)
        reservedRows.store(rows, ordering: .releasing)
        write(String(repeating: "\n", count: rows) + "\u{1B}[\(rows)A\r\u{1B}7\u{1B}[?25l")
    }

    /// Moves the cursor to the line below the region and shows it again. Call once, when views are done.
    public func finish() {
        write(Self.moveToRegion(column: 0, row: rows) + "\u{1B}[0m\u{1B}[?25h")
    }

    /// Writes `text` in one piece. A failed write (a closed terminal) is dropped: there is nowhere to report it.
    public func write(_ text: String) {
        fileHandle.withLock { handle in
            try? handle.write(contentsOf: Data(text.utf8))
        }
    }

    /// The sequence that puts the cursor at `column`, `row` of the region.
    static func moveToRegion(column: Int, row: Int) -> String {
        var text = "\u{1B}8"
        if row > 0 { text += "\u{1B}[\(row)B" }
        if column > 0 { text += "\u{1B}[\(column)C" }
        return text
    }
}
