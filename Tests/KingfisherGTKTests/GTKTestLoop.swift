import CGtk
import Foundation
import KingfisherGTK
import KingfisherLocking

/// GTK on a thread of its own for the tests: it owns GLib's default main context and iterates it forever.
enum GTKTestLoop {
    /// Whether GTK started (a display is needed: tests run under Xvfb in CI).
    static let available: Bool = {
        let environment = ProcessInfo.processInfo.environment
        guard environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil else { return false }
        // The cairo renderer draws in memory: no GL needed under Xvfb.
        setenv("GSK_RENDERER", "cairo", 1)
        // No accessibility bus under Xvfb: without this GTK warns on stderr that it found none.
        setenv("GTK_A11Y", "none", 1)
        let started = DispatchSemaphore(value: 0)
        let result = Locked(false)
        let thread = Thread {
            _ = g_main_context_acquire(nil)
            let ok = gtk_init_check() != 0
            result.withLock { $0 = ok }
            started.signal()
            guard ok else { return }
            while true { _ = g_main_context_iteration(nil, 1) }
        }
        thread.name = "GTK"
        thread.start()
        started.wait()
        return result.withLock { $0 }
    }()
}

/// Runs `body` on the GTK thread and returns its value.
func onGTK<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withSanitizedCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
        GTKMainContext.perform { continuation.resume(returning: body()) }
    }
}

/// Waits (on the GTK thread's frames) until `condition` holds there, for at most `seconds`: a safety net, not a
/// measure (30 s by default: a clean-clone run beside two sanitizer builds once needed more than 10 s for a load
/// to finish).
func waitOnGTK(seconds: Double = 30, _ condition: @escaping @Sendable () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if await onGTK(condition) { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return false
}
