import ArgumentParser
import KfCommandKit
import Kingfisher

/// `--transition`: `none`, `fade:SECONDS`, or `flip-left`, `flip-right`, `flip-top`, `flip-bottom` with `:SECONDS`.
struct TransitionArgument: ExpressibleByArgument, Sendable {
    let transition: ImageTransition
    let text: String

    init?(argument: String) {
        text = argument
        if argument == "none" {
            transition = .none
            return
        }
        let parts = argument.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, let seconds = Double(parts[1]), seconds >= 0, seconds <= 10 else { return nil }
        switch parts[0] {
        case "fade": transition = .fade(seconds)
        case "flip-left": transition = .flipFromLeft(seconds)
        case "flip-right": transition = .flipFromRight(seconds)
        case "flip-top": transition = .flipFromTop(seconds)
        case "flip-bottom": transition = .flipFromBottom(seconds)
        default: return nil
        }
    }

    var defaultValueDescription: String { text }
}
