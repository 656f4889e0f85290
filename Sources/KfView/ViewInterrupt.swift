import Dispatch
import Foundation
import KfCommandKit
import KingfisherTerminal

/// Ctrl-C during `kf view`: leaves the terminal tidy (cursor below the pictures and shown) before exiting.
enum ViewInterrupt {
    /// Handles SIGINT until the returned source is cancelled.
    static func install(screen: TerminalScreen) -> any DispatchSourceSignal {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler {
            screen.finish()
            exit(130)
        }
        source.resume()
        return source
    }
}
