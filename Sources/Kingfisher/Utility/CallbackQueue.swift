public import Dispatch
import Foundation

/// Where a callback runs.
///
/// - Note: Kingfisher on Apple platforms defaults to `.mainCurrentOrAsync`. A server or an `async` command-line
///   tool may never drain `DispatchQueue.main`, so every Kingfisher API here defaults to `.untouch` instead:
///   the callback runs on the thread that finished the work. Pass `.mainAsync` when you do run a main loop.
public enum CallbackQueue: Sendable {
    /// Dispatch asynchronously to the main queue. Needs a running main queue or run loop.
    case mainAsync
    /// Run at once when already on the main thread, otherwise like `.mainAsync`.
    case mainCurrentOrAsync
    /// Run on whichever thread finished the work, without dispatching. The default here.
    case untouch
    /// Dispatch asynchronously to this queue.
    case dispatch(DispatchQueue)

    /// Runs `block` where this case says.
    public func execute(_ block: @escaping @Sendable () -> Void) {
        switch self {
        case .mainAsync:
            DispatchQueue.main.async(execute: block)
        case .mainCurrentOrAsync:
            if Thread.isMainThread { block() } else { DispatchQueue.main.async(execute: block) }
        case .untouch:
            block()
        case .dispatch(let queue):
            queue.async(execute: block)
        }
    }

    /// The queue a block would run on; `nil` for `.untouch`.
    public var queue: DispatchQueue? {
        switch self {
        case .mainAsync, .mainCurrentOrAsync: .main
        case .untouch: nil
        case .dispatch(let queue): queue
        }
    }
}
