import KingfisherTerminal
import Testing

@Suite("Terminal output mode detection")
struct TerminalOutputModeTests {
    @Test(
        "the environment picks the mode",
        arguments: [
            (["TERM": "xterm-256color"], TerminalOutputMode.symbols),
            ([:], .symbols),
            (["TERM": "xterm-kitty"], .kitty),
            (["TERM": "xterm-256color", "KITTY_WINDOW_ID": "3"], .kitty),
            (["TERM": "xterm-256color", "TERM_PROGRAM": "ghostty"], .kitty),
            (["TERM": "foot"], .sixel),
            (["TERM": "xterm-256color", "TERM_PROGRAM": "WezTerm"], .sixel),
            (["TERM": "tmux-256color", "KITTY_WINDOW_ID": "3"], .symbols),
            (["TERM": "screen", "TERM_PROGRAM": "WezTerm"], .symbols),
        ])
    func detect(environment: [String: String], expected: TerminalOutputMode) {
        #expect(TerminalOutputMode.detect(environment: environment) == expected)
    }

    @Test("a renderer without a mode takes the detected one; a forced mode wins")
    func rendererMode() {
        #expect(TerminalRenderer(environment: ["TERM": "xterm-kitty"]).mode == .kitty)
        #expect(TerminalRenderer(mode: .sixel, environment: ["TERM": "xterm-kitty"]).mode == .sixel)
    }
}
