public import Foundation

/// How a terminal view turns pixels into text: Unicode symbols with colours, sixel graphics or kitty graphics.
public enum TerminalOutputMode: String, Sendable, CaseIterable {
    /// Block and border symbols in 24-bit colour: works in any modern terminal, and in tmux or screen.
    case symbols
    /// Sixel graphics (foot, mlterm, WezTerm, iTerm2 3.3+, xterm with `-ti vt340`).
    case sixel
    /// The kitty graphics protocol (kitty, Ghostty, WezTerm).
    case kitty

    /// The mode the terminal described by `environment` shows best. Inside tmux or screen (`TERM` starting with
    /// `tmux` or `screen`) that is ``symbols``, whatever the outer terminal is: they pass no graphics through by
    /// default. Otherwise ``kitty`` in kitty (`KITTY_WINDOW_ID`, `TERM=xterm-kitty`) and Ghostty, ``sixel`` in
    /// terminals known for it, ``symbols`` everywhere else.
    public static func detect(environment: [String: String] = ProcessInfo.processInfo.environment) -> Self {
        let term = environment["TERM"] ?? ""
        let program = environment["TERM_PROGRAM"] ?? ""
        if term.hasPrefix("tmux") || term.hasPrefix("screen") { return .symbols }
        if environment["KITTY_WINDOW_ID"].map({ !$0.isEmpty }) == true || term == "xterm-kitty"
            || term == "xterm-ghostty" || program == "ghostty"
        {
            return .kitty
        }
        let sixelTerms = ["foot", "foot-extra", "mlterm", "contour", "yaft-256color"]
        let sixelPrograms = ["WezTerm", "iTerm.app", "mintty"]
        if sixelTerms.contains(term) || sixelPrograms.contains(program) { return .sixel }
        return .symbols
    }
}
