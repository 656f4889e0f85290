public import Dispatch
public import Foundation

/// Kingfisher's name for ``CallbackQueue`` where it says where work runs rather than where a callback is called
/// (``LocalFileImageDataProvider``'s loading queue).
public typealias ExecutionQueue = CallbackQueue

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
    /// Add the block to this operation queue: Foundation's `OperationQueue`, or a queue of your own (one that runs
    /// the newest work first, for example). As a `processingQueue`, decoding and processing run there.
    case operationQueue(any CallbackOperationQueue)

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
        case .operationQueue(let queue):
            queue.addOperation(block)
        }
    }

    /// The queue a block would run on; `nil` for `.untouch` and for an operation queue that is not backed by a
    /// dispatch queue.
    public var queue: DispatchQueue? {
        switch self {
        case .mainAsync, .mainCurrentOrAsync: .main
        case .untouch: nil
        case .dispatch(let queue): queue
        case .operationQueue(let queue): (queue as? OperationQueue)?.underlyingQueue
        }
    }

    /// Whether ``execute(_:)`` hands the block to a queue instead of running it in place.
    var runsElsewhere: Bool {
        if case .untouch = self { return false }
        return true
    }
}

/// A queue that runs blocks, for ``CallbackQueue/operationQueue(_:)``. Foundation's `OperationQueue` is one.
public protocol CallbackOperationQueue: Sendable {
    /// Runs `block` once, on the queue's own terms (order, concurrency, thread).
    func addOperation(_ block: @escaping @Sendable () -> Void)
}

extension OperationQueue: CallbackOperationQueue {}
