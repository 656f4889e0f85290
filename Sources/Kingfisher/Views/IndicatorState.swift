import KingfisherLocking

/// What a built-in indicator shows: whether it is animating, and the download progress of the current load.
public struct IndicatorState: Sendable, Equatable {
    /// Whether a load is running.
    public var isAnimating = false
    /// Bytes received by the current load.
    public var receivedSize: Int64 = 0
    /// Bytes expected by the current load; `0` or less when unknown.
    public var totalSize: Int64 = 0

    public init(isAnimating: Bool = false, receivedSize: Int64 = 0, totalSize: Int64 = 0) {
        self.isAnimating = isAnimating
        self.receivedSize = receivedSize
        self.totalSize = totalSize
    }

    /// The part received, `0...1`; `nil` while the total is unknown.
    public var fractionCompleted: Double? {
        guard totalSize > 0 else { return nil }
        return min(1, max(0, Double(receivedSize) / Double(totalSize)))
    }
}

/// An ``IndicatorState`` behind a lock, with an observer told of every change (outside the lock).
final class IndicatorModel: Sendable {
    private struct Storage {
        var state = IndicatorState()
        var onChange: (@Sendable (IndicatorState) -> Void)?
    }

    private let storage = Locked(Storage())

    var state: IndicatorState { storage.withLock { $0.state } }

    var onChange: (@Sendable (IndicatorState) -> Void)? {
        get { storage.withLock { $0.onChange } }
        set { storage.withLock { $0.onChange = newValue } }
    }

    /// Starting resets the progress; starting again while animating keeps it.
    func start() {
        update { state in
            if !state.isAnimating { state = IndicatorState(isAnimating: true) }
        }
    }

    func stop() {
        update { $0.isAnimating = false }
    }

    func progress(receivedSize: Int64, totalSize: Int64) {
        update { state in
            state.receivedSize = receivedSize
            state.totalSize = totalSize
        }
    }

    private func update(_ change: (inout IndicatorState) -> Void) {
        let (changed, observer) = storage.withLock {
            storage -> (IndicatorState?, (@Sendable (IndicatorState) -> Void)?) in
            let old = storage.state
            change(&storage.state)
            return (old == storage.state ? nil : storage.state, storage.onChange)
        }
        if let changed, let observer { observer(changed) }
    }
}
