import CGtk
import Foundation
import XCTest

/// GTK on the main thread, as a GTK program runs it: XCTest runs the tests there, and its waits
/// (`waitForExpectations`) run the main run loop, on which a timer runs GTK's main context too. Kingfisher's
/// tests on iOS wait the same way with UIKit's main loop.
enum GTKOnMainThread {
    /// Whether GTK started (a display is needed: `scripts/test` runs the tests under Xvfb).
    static let started: Bool = {
        precondition(Thread.isMainThread, "GTK starts on the main thread")
        let environment = ProcessInfo.processInfo.environment
        guard environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil else { return false }
        // The cairo renderer draws in memory: no GL needed under Xvfb. No accessibility bus under Xvfb either.
        setenv("GSK_RENDERER", "cairo", 1)
        setenv("GTK_A11Y", "none", 1)
        // The main thread owns GLib's default context for good: it is the GTK thread.
        guard g_main_context_acquire(nil) != 0, gtk_init_check() != 0 else { return false }
        let timer = Timer(timeInterval: 0.002, repeats: true) { _ in
            // A bounded number of iterations per tick: a running frame clock always has something ready.
            var iterations = 0
            while iterations < 64, g_main_context_iteration(nil, 0) != 0 { iterations += 1 }
        }
        RunLoop.main.add(timer, forMode: .common)
        return true
    }()

    /// Skips the calling test when there is no display to start GTK on.
    static func require() throws {
        guard started else { throw XCTSkip("GTK needs a display (run the tests under xvfb-run)") }
    }
}
