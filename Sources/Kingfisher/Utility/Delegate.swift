import Foundation

/// A stored callback that holds its owner weakly, Kingfisher's `Delegate`.
///
/// Instead of a closure property that each caller must remember to write with `[weak self]`, an object exposes a
/// `Delegate` and callers attach to it with `delegate(on:block:)`: the block receives the target back as its first
/// argument and is skipped (the call returns `nil`) once the target is gone, so neither side keeps the other alive.
///
/// ```swift
/// let onDone = Delegate<URL, Void>()
/// onDone.delegate(on: self) { (self, url) in self.show(url) }
/// onDone(url)          // or onDone.call(url)
/// ```
///
/// Setting a new block replaces the previous one; passing `nil` removes it. Blocks run on the thread that calls,
/// so they are `@Sendable` (unlike Kingfisher's): a block written in main-actor code would otherwise be isolated
/// to the main actor and trap when a download or preview calls it from another thread.
// @unchecked: it stores caller closures that Kingfisher's API takes as non-Sendable; every access goes through `lock`.
public class Delegate<Input, Output>: @unchecked Sendable {
    private let lock = NSLock()
    private var syncBlock: ((Input) -> Output?)?
    private var asyncBlock: ((Input) async -> Output?)?

    /// A delegate with no block: calls return `nil`.
    public init() {}

    /// Attaches `block`, called with `target` and the input for as long as `target` is alive.
    public func delegate<T: AnyObject>(on target: T, block: (@Sendable (T, Input) -> Output)?) {
        let stored: ((Input) -> Output?)? = block.map { block in
            { [weak target] input in
                guard let target else { return nil }
                return block(target, input)
            }
        }
        lock.withLock {
            syncBlock = stored
            asyncBlock = nil
        }
    }

    /// Attaches an `async` block, called through `callAsync(_:)` with `target` while it is alive.
    public func delegate<T: AnyObject>(on target: T, block: (@Sendable (T, Input) async -> Output)?) {
        let stored: ((Input) async -> Output?)? = block.map { block in
            { [weak target] input in
                guard let target else { return nil }
                return await block(target, input)
            }
        }
        lock.withLock {
            asyncBlock = stored
            syncBlock = nil
        }
    }

    /// Whether a block is attached (its target may since have gone).
    public var isSet: Bool {
        lock.withLock { syncBlock != nil || asyncBlock != nil }
    }

    /// Calls the attached synchronous block; `nil` when there is none or its target is gone.
    public func call(_ input: Input) -> Output? {
        let block = lock.withLock { syncBlock }
        return block?(input)
    }

    /// Same as `call(_:)`.
    public func callAsFunction(_ input: Input) -> Output? {
        call(input)
    }

    /// Calls the attached block, `async` or not; `nil` when there is none or its target is gone.
    public func callAsync(_ input: Input) async -> Output? {
        let (syncBlock, asyncBlock) = lock.withLock { (self.syncBlock, self.asyncBlock) }
        if let asyncBlock { return await asyncBlock(input) }
        return syncBlock?(input)
    }
}

extension Delegate where Input == Void {
    /// Calls a delegate that takes no input.
    public func call() -> Output? {
        call(())
    }

    /// Same as `call()`.
    public func callAsFunction() -> Output? {
        call()
    }
}

extension Delegate where Output: OptionalProtocol {
    /// Calls a delegate whose output is itself optional, flattening "no block" into that optional's `nil`.
    public func call(_ input: Input) -> Output {
        let block = lock.withLock { syncBlock }
        return block?(input) ?? Output._createNil
    }

    /// Same as `call(_:)`.
    public func callAsFunction(_ input: Input) -> Output {
        call(input)
    }
}

extension Delegate where Input == Void, Output: OptionalProtocol {
    /// Calls a no-input delegate whose output is optional.
    public func call() -> Output {
        call(())
    }

    /// Same as `call()`.
    public func callAsFunction() -> Output {
        call()
    }
}

/// Lets `Delegate` flatten an optional output; `Optional` is the only conformer.
public protocol OptionalProtocol {
    /// The `nil` of this optional type.
    static var _createNil: Self { get }
}

extension Optional: OptionalProtocol {
    /// `nil`.
    public static var _createNil: Wrapped? { nil }
}
