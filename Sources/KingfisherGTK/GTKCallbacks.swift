public import CGtk

/// Swift closures as GTK callbacks: signal handlers and frame-clock ticks. Both run on the GTK thread.
public enum GTKCallbacks {
    /// Calls `body` on each emission of `signal` on `instance` while the instance lives. Only for signals whose
    /// handlers take no arguments and return nothing: `value-changed` and `changed` of a `GtkAdjustment`, the
    /// phases of a `GdkFrameClock` (`before-paint`, `after-paint`, ...).
    @discardableResult
    public static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, _ body: @escaping () -> Void)
        -> UInt
    {
        let box = Unmanaged.passRetained(Handler(body)).toOpaque()
        return cgtk_connect(
            instance, signal,
            { data in
                guard let data else { return }
                Unmanaged<Handler>.fromOpaque(data).takeUnretainedValue().body()
            }, box,
            { data in
                guard let data else { return }
                Unmanaged<Handler>.fromOpaque(data).release()
            })
    }

    /// Calls `body` with the frame time (µs, monotonic) before each frame of `widget`, while it returns `true` and
    /// the widget lives. Keeps the frame clock running meanwhile.
    public static func addTick(to widget: UnsafeMutablePointer<GtkWidget>, _ body: @escaping (Int64) -> Bool) {
        let box = Unmanaged.passRetained(Tick(body)).toOpaque()
        _ = cgtk_add_tick(
            widget,
            { data, frameTime in
                guard let data else { return 0 }
                return Unmanaged<Tick>.fromOpaque(data).takeUnretainedValue().body(Int64(frameTime)) ? 1 : 0
            }, box,
            { data in
                guard let data else { return }
                Unmanaged<Tick>.fromOpaque(data).release()
            })
    }

    private final class Handler {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    private final class Tick {
        let body: (Int64) -> Bool
        init(_ body: @escaping (Int64) -> Bool) { self.body = body }
    }
}
