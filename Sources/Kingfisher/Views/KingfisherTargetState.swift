import KingfisherLocking

/// Kingfisher's bookkeeping for one image target: the current request and its task, the placeholder shown, the
/// indicator. A target owns one in a stored property (``KingfisherImageTarget/kingfisherState``) so it lives and
/// dies with the target; Linux has no associated objects to hang it on.
///
/// When it goes away with its target, the target's running download is cancelled: a load never keeps its target
/// alive, and the completion handler still gets called once (see ``KingfisherImageTarget``).
public final class KingfisherTargetState: Sendable {
    struct Values {
        /// The request the target waits for; `nil` when none.
        var taskIdentifier: Source.Identifier.Value?
        /// The download task of that request, when it has one.
        var task: DownloadTask?
        /// The placeholder shown now.
        var placeholder: (any Placeholder)?
        var indicatorType: IndicatorType = .none
        var indicator: (any Indicator)?
    }

    let values = Locked(Values())

    /// Every call Kingfisher makes on the target goes through here, one at a time.
    let actions: TargetActionQueue

    /// Bookkeeping for a target whose methods may run on any thread (one at a time; see
    /// ``KingfisherImageTarget``).
    public init() {
        actions = TargetActionQueue()
    }

    /// Bookkeeping for a target bound to one thread, such as a view on a UI toolkit's main loop: Kingfisher makes
    /// every call on the target — placeholder, indicator, image, transition — and calls `setImage`'s progress and
    /// completion handlers through `perform`, which runs them there, in the order given (as Kingfisher's views run
    /// them on the main queue, whatever the `callbackQueue`).
    /// - Parameter perform: runs a block on the target's thread: at once when called there with nothing queued
    ///   before it, else queued; never out of order.
    public init(performingCallsWith perform: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        actions = TargetActionQueue(perform: perform)
    }

    deinit {
        values.withLock { $0.task }?.cancel()
    }

    /// Makes a new request the current one: returns its identifier and the task of the request it replaces.
    func issueRequest() -> (identifier: UInt, replaced: DownloadTask?) {
        values.withLock { values in
            let identifier = Source.Identifier.next()
            values.taskIdentifier = identifier
            defer { values.task = nil }
            return (identifier, values.task)
        }
    }

    /// Forgets the current request, if any; returns its task and whether there was one.
    func dropRequest() -> (wasLoading: Bool, task: DownloadTask?) {
        values.withLock { values in
            defer {
                values.taskIdentifier = nil
                values.task = nil
            }
            return (values.taskIdentifier != nil, values.task)
        }
    }

    /// Records `task` as the task of request `identifier`; `false` (nothing recorded) when that request is no
    /// longer current.
    @discardableResult
    func setTask(_ task: DownloadTask?, for identifier: UInt) -> Bool {
        values.withLock { values in
            guard values.taskIdentifier == identifier else { return false }
            values.task = task
            return true
        }
    }

    /// Ends request `identifier` when it is the current one; `false` when a newer request (or none) is current.
    func finishRequest(_ identifier: UInt) -> Bool {
        values.withLock { values in
            guard values.taskIdentifier == identifier else { return false }
            values.taskIdentifier = nil
            values.task = nil
            return true
        }
    }

    func isCurrent(_ identifier: UInt) -> Bool {
        values.withLock { $0.taskIdentifier == identifier }
    }

    var currentTask: DownloadTask? { values.withLock { $0.task } }

    var currentTaskIdentifier: UInt? { values.withLock { $0.taskIdentifier } }

    var placeholder: (any Placeholder)? { values.withLock { $0.placeholder } }

    /// Records `placeholder` as the one shown; returns the one shown before.
    func replacePlaceholder(with placeholder: (any Placeholder)?) -> (any Placeholder)? {
        values.withLock { values in
            defer { values.placeholder = placeholder }
            return values.placeholder
        }
    }

    var indicator: (any Indicator)? { values.withLock { $0.indicator } }

    var indicatorType: IndicatorType { values.withLock { $0.indicatorType } }

    /// Records a new indicator; returns the previous one and whether a request is under way.
    func replaceIndicator(
        type: IndicatorType, with indicator: (any Indicator)?
    ) -> (previous: (any Indicator)?, isLoading: Bool) {
        values.withLock { values in
            defer {
                values.indicatorType = type
                values.indicator = indicator
            }
            return (values.indicator, values.taskIdentifier != nil)
        }
    }
}
