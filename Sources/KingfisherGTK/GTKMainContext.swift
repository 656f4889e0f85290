import CGtk
import KingfisherLocking

/// A GTK object pointer that may cross threads but is only used on the GTK main context.
// @unchecked: GTK objects are not thread-safe; every use of `pointer` happens inside GTKMainContext.perform.
public struct GTKObject<Pointee>: @unchecked Sendable {
    public let pointer: UnsafeMutablePointer<Pointee>

    public init(_ pointer: UnsafeMutablePointer<Pointee>) {
        self.pointer = pointer
    }
}

/// The GTK main context (GLib's default context, which the GTK thread runs): every GTK call belongs there.
///
/// Kingfisher calls a target from whatever thread finished the work; ``KFImageView`` hops here with
/// ``perform(_:)``. A GTK program also gets `DispatchQueue.main` drained from its GLib main loop after
/// ``attachDispatchMainQueue()``, so `CallbackQueue.mainAsync` and `.mainCurrentOrAsync` work in it.
public enum GTKMainContext {
    /// Whether the calling thread runs the GTK main context.
    public static var isCurrent: Bool { cgtk_is_main_thread() != 0 }

    /// Runs `body` on the GTK main context: at once when called there, else at its next iteration.
    ///
    /// Work runs in the order it was asked for: on the GTK thread it runs at once only while nothing asked from
    /// another thread is still waiting (a placeholder laid from a worker thread is not removed before it is laid).
    public static func perform(_ body: @escaping @Sendable () -> Void) {
        if isCurrent, waiting.withLock({ $0 == 0 }) {
            body()
            return
        }
        waiting.withLock { $0 += 1 }
        enqueue(priority: G_PRIORITY_DEFAULT) {
            waiting.withLock { $0 -= 1 }
            body()
        }
    }

    /// Runs `body` on the GTK main context: at once when called there (even with work from other threads still
    /// queued), else at its next iteration. For calls that must take effect before the GTK thread's caller goes
    /// on, as UIKit's on the main thread do: Kingfisher's calls on a ``KFImageView``, which all come from the GTK
    /// thread.
    public static func performNowIfCurrent(_ body: @escaping @Sendable () -> Void) {
        if isCurrent {
            body()
            return
        }
        perform(body)
    }

    /// Work queued by ``perform(_:)`` that has not run yet.
    private static let waiting = Locked(0)

    /// Runs `body` on the GTK main context when it is next idle: never at once, so not inside the frame (layout,
    /// drawing) or the signal emission that asks for it.
    public static func performWhenIdle(_ body: @escaping @Sendable () -> Void) {
        enqueue(priority: G_PRIORITY_DEFAULT_IDLE, body)
    }

    /// Runs `body` on the GTK main context right after the frame being made now and before the next one (GLib's
    /// high idle priority, above GTK's redraw): for work a frame-clock tick asks for that should not lengthen
    /// that frame, yet must not wait behind other idle work.
    package static func performAfterFrame(_ body: @escaping @Sendable () -> Void) {
        enqueue(priority: G_PRIORITY_HIGH_IDLE, body)
    }

    /// Queues `body` on the GTK main context at `priority`.
    ///
    /// GLib hands the work over under its own locks, which ThreadSanitizer does not see (GLib is not instrumented):
    /// the hand-off is annotated on the work's address, so what the queuing thread did before happens before the
    /// work runs.
    private static func enqueue(priority: Int32, _ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Work(body)).toOpaque()
        ThreadSanitizer.release(box)
        cgtk_invoke(
            { pointer in
                guard let pointer else { return }
                ThreadSanitizer.acquire(pointer)
                Unmanaged<Work>.fromOpaque(pointer).takeRetainedValue().body()
            }, box, priority)
    }

    /// Makes the GLib main loop run `DispatchQueue.main`'s work, as Foundation's run loop does elsewhere. Call once,
    /// on the GTK thread, in a program whose main thread runs GTK.
    public static func attachDispatchMainQueue() {
        _ = cgtk_attach_dispatch_main_queue()
    }

    final class Work: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}
