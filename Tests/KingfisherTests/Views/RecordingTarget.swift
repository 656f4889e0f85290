import Foundation
import Synchronization
import Testing

@testable import Kingfisher
import KingfisherLocking

/// What a ``RecordingTarget`` (and its placeholder and indicator) was told, in order. Images are named by their
/// pixel size: every image a test uses has a size of its own.
enum TargetEvent: Equatable, Sendable {
    case image(String?)
    case placeholderAdded(String)
    case placeholderRemoved(String)
    case indicatorAdded(String)
    case indicatorRemoved(String)
    case indicatorStarted(String)
    case indicatorStopped(String)
    case indicatorProgress(String, received: Int64, total: Int64)
    case transition(String, from: String?, to: String)

    var isProgress: Bool {
        if case .indicatorProgress = self { return true }
        return false
    }
}

extension Bool {
    var negated: Bool { !self }
}

func name(_ image: KFCrossPlatformImage?) -> String? {
    image.map { "\($0.pixelWidth)x\($0.pixelHeight)" }
}

/// An append-only event list shared by a target, its placeholder and its indicator; it outlives the target.
final class EventLog: Sendable {
    private let events = Locked<[TargetEvent]>([])

    func append(_ event: TargetEvent) { events.withLock { $0.append(event) } }

    var all: [TargetEvent] { events.withLock { $0 } }

    func clear() { events.withLock { $0 = [] } }
}

/// An image target that logs every call Kingfisher makes on it, and checks that no two ever overlap.
final class RecordingTarget: KingfisherImageTarget {
    let kingfisherState = KingfisherTargetState()
    let log: EventLog
    private let shown = Locked<KFCrossPlatformImage?>(nil)
    private let busy = Atomic<Bool>(false)

    init(log: EventLog = EventLog(), image: KFCrossPlatformImage? = nil) {
        self.log = log
        shown.withLock { $0 = image }
    }

    /// A target with a ``RecordingIndicator`` set, and `log` emptied of the indicator's set-up events.
    static func withIndicator(log: EventLog) -> RecordingTarget {
        let target = RecordingTarget(log: log)
        target.kf.indicatorType = .custom(indicator: RecordingIndicator(log: log))
        log.clear()
        return target
    }

    var image: KFCrossPlatformImage? {
        get { shown.withLock { $0 } }
        set {
            exclusive {
                shown.withLock { $0 = newValue }
                log.append(.image(name(newValue)))
            }
        }
    }

    func addIndicator(_ indicator: any Indicator) {
        exclusive { log.append(.indicatorAdded(label(of: indicator))) }
    }

    func removeIndicator(_ indicator: any Indicator) {
        exclusive { log.append(.indicatorRemoved(label(of: indicator))) }
    }

    func transition(
        _ transition: ImageTransition, from oldImage: KFCrossPlatformImage?, to newImage: KFCrossPlatformImage,
        completion: @escaping @Sendable (Bool) -> Void
    ) {
        exclusive { log.append(.transition(kind(of: transition), from: name(oldImage), to: name(newImage)!)) }
        if case .custom(_, let animations?, _) = transition {
            animations(self, newImage)
        } else {
            image = newImage
        }
        completion(true)
    }

    /// Fails the test when Kingfisher calls this target from two threads at once.
    private func exclusive(_ body: () -> Void) {
        let (exchanged, _) = busy.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing)
        #expect(exchanged, "two calls on one target overlapped")
        body()
        if exchanged { busy.store(false, ordering: .releasing) }
    }

    private func label(of indicator: any Indicator) -> String {
        switch indicator {
        case let indicator as RecordingIndicator: indicator.label
        case is ActivityIndicator: "activity"
        case is ImageIndicator: "image"
        default: "other"
        }
    }

    private func kind(of transition: ImageTransition) -> String {
        switch transition {
        case .none: "none"
        case .fade(let duration): "fade(\(duration))"
        case .flipFromLeft(let duration): "flipFromLeft(\(duration))"
        case .flipFromRight(let duration): "flipFromRight(\(duration))"
        case .flipFromTop(let duration): "flipFromTop(\(duration))"
        case .flipFromBottom(let duration): "flipFromBottom(\(duration))"
        case .custom(let duration, _, _): "custom(\(duration))"
        }
    }
}

/// A placeholder that is not an image: it logs being added and removed.
struct RecordingPlaceholder: Placeholder {
    let label: String
    let log: EventLog

    func add(to target: any KingfisherImageTarget) { log.append(.placeholderAdded(label)) }

    func remove(from target: any KingfisherImageTarget) { log.append(.placeholderRemoved(label)) }
}

/// An indicator that logs its calls.
final class RecordingIndicator: Indicator {
    let label: String
    let log: EventLog

    init(_ label: String = "indicator", log: EventLog) {
        self.label = label
        self.log = log
    }

    func startAnimatingView() { log.append(.indicatorStarted(label)) }

    func stopAnimatingView() { log.append(.indicatorStopped(label)) }

    func updateProgress(receivedSize: Int64, totalSize: Int64) {
        log.append(.indicatorProgress(label, received: receivedSize, total: totalSize))
    }
}

extension KingfisherWrapper where Base: KingfisherImageTarget {
    /// `setImage` through `manager` (tests keep ``KingfisherManager/shared`` and its user cache directory out).
    @discardableResult
    func setImage(
        with source: Source?,
        placeholder: (any Placeholder)? = nil,
        options: KingfisherOptionsInfo? = nil,
        manager: KingfisherManager,
        progressBlock: DownloadProgressBlock? = nil,
        completionHandler: (@Sendable (Result<RetrieveImageResult, KingfisherError>) -> Void)? = nil
    ) -> DownloadTask? {
        setImage(
            with: source, placeholder: placeholder, parsedOptions: manager.parsedOptions(options), manager: manager,
            progressBlock: progressBlock, completionHandler: completionHandler)
    }

    /// `setImage` through `manager`, awaited: the result its completion handler got.
    func load(
        _ source: Source?, placeholder: (any Placeholder)? = nil, options: KingfisherOptionsInfo? = nil,
        manager: KingfisherManager
    ) async -> Result<RetrieveImageResult, KingfisherError> {
        await withSanitizedCheckedContinuation { continuation in
            setImage(
                with: source, placeholder: placeholder, options: options, manager: manager,
                completionHandler: { continuation.resume(returning: $0) })
        }
    }
}

extension KingfisherError {
    /// The result and error of a `notCurrentSourceTask`; `nil` for any other error.
    var notCurrentSourceTask: (result: RetrieveImageResult?, error: (any Error)?)? {
        if case .imageSettingError(.notCurrentSourceTask(let result, let error, _)) = self { return (result, error) }
        return nil
    }
}
