import Foundation
import KingfisherTerminal
import Testing

@Suite("Terminal grid sizes and regions")
struct TerminalGeometryTests {
    @Test("COLSxROWS parses; anything else is nil")
    func parsing() {
        #expect(TerminalGridSize(parsing: "80x24") == TerminalGridSize(columns: 80, rows: 24))
        #expect(TerminalGridSize(parsing: "100X40") == TerminalGridSize(columns: 100, rows: 40))
        for bad in ["", "80", "80x", "x24", "0x24", "80x-1", "80x24x2", "axb"] {
            #expect(TerminalGridSize(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test("a file that is not a terminal reports no size")
    func notATerminal() throws {
        let descriptor = open("/dev/null", O_WRONLY)
        defer { close(descriptor) }
        #expect(TerminalGridSize.current(of: descriptor) == nil)
    }

    @Test("regions tile the area left to right, top to bottom, one blank column apart")
    func grid() {
        let area = TerminalGridSize(columns: 81, rows: 40)
        let four = TerminalRegion.grid(of: 4, in: area)
        #expect(four.map(\.column) == [0, 41, 0, 41])
        #expect(four.map(\.row) == [0, 0, 20, 20])
        #expect(four.allSatisfy { $0.size == TerminalGridSize(columns: 40, rows: 20) })
        let three = TerminalRegion.grid(of: 3, in: area)
        #expect(three.map(\.row) == [0, 0, 20])
        #expect(TerminalRegion.grid(of: 1, in: area) == [TerminalRegion(size: area)])
        #expect(TerminalRegion.grid(of: 0, in: area).isEmpty)
    }
}
