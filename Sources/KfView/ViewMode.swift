import ArgumentParser
import KfCommandKit
import KingfisherTerminal

/// `--symbols`, `--sixel` or `--kitty`: the output mode `kf view` is forced to.
enum ViewMode: String, EnumerableFlag {
    case symbols, sixel, kitty

    static func help(for value: ViewMode) -> ArgumentHelp? {
        switch value {
        case .symbols: "Draw with Unicode block symbols in colour (works in tmux and most terminals)."
        case .sixel: "Draw with sixel graphics."
        case .kitty: "Draw with the kitty graphics protocol."
        }
    }

    var outputMode: TerminalOutputMode {
        switch self {
        case .symbols: .symbols
        case .sixel: .sixel
        case .kitty: .kitty
        }
    }
}
