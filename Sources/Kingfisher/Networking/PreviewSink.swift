import KingfisherLocking

/// Where the previews of one load go: to an image target, an ``ImageRetrievalTask``'s stream, or
/// ``ImageProgressive/onImageUpdated``.
///
/// It keeps them in order and before the final result: whoever delivers the result closes the sink first, through
/// ``close(then:)``, which runs the delivery at once or, when a preview is being handed over on another thread (or
/// the same one, from inside the preview's handler), right after it. No lock is held while the handler runs. A
/// preview of no more scans than the one before it from the same download caller (a retried download starting
/// again) is dropped, as is one that arrives while another is being handed over.
final class PreviewSink: Sendable {
    let progressive: ImageProgressive
    private let receive: @Sendable (KFCrossPlatformImage) -> Void

    private struct State {
        var isClosed = false
        var isDelivering = false
        var afterDelivery: [@Sendable () -> Void] = []
        var lastOrigin: ObjectIdentifier?
        var lastScans = 0
    }

    private let state = Locked(State())

    init(progressive: ImageProgressive, receive: @escaping @Sendable (KFCrossPlatformImage) -> Void) {
        self.progressive = progressive
        self.receive = receive
    }

    /// A sink that only calls ``ImageProgressive/onImageUpdated`` (its answer ignored) on `queue`; `nil` when
    /// nothing is attached to it, so no preview is decoded for nobody.
    static func callingDelegate(of progressive: ImageProgressive, on queue: CallbackQueue) -> PreviewSink? {
        guard progressive.onImageUpdated.isSet else { return nil }
        let delegate = progressive.onImageUpdated
        return PreviewSink(progressive: progressive) { preview in
            queue.execute { _ = delegate.call(preview) }
        }
    }

    var isClosed: Bool { state.withLock { $0.isClosed } }

    /// Hands `preview`, made from `scans` completed scans of a download for `origin`, to the handler, unless the
    /// sink is closed or the preview adds nothing.
    func deliver(_ preview: KFCrossPlatformImage, scans: Int, from origin: AnyObject) {
        let identity = ObjectIdentifier(origin)
        let admitted = state.withLock { state -> Bool in
            guard !state.isClosed, !state.isDelivering else { return false }
            if state.lastOrigin == identity, scans <= state.lastScans { return false }
            state.lastOrigin = identity
            state.lastScans = scans
            state.isDelivering = true
            return true
        }
        guard admitted else { return }
        receive(preview)
        let pending = state.withLock { state in
            state.isDelivering = false
            defer { state.afterDelivery = [] }
            return state.afterDelivery
        }
        for action in pending { action() }
    }

    /// Closes the sink (no preview is delivered any more); returns at once, or right after a preview being handed
    /// over now.
    func close() async {
        await withSanitizedCheckedContinuation { continuation in close { continuation.resume() } }
    }

    /// Closes the sink (no preview is delivered any more), then runs `action`: at once, or right after a preview
    /// being handed over now.
    func close(then action: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            state.isClosed = true
            guard state.isDelivering else { return true }
            state.afterDelivery.append(action)
            return false
        }
        if runNow { action() }
    }
}
