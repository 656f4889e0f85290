import Foundation
import KingfisherLocking

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// A builder of options with chained setters, Kingfisher's `KFOptionSetter`: a type that stores
/// ``KingfisherParsedOptionsInfo`` and the three result delegates gets every option setter (`forceRefresh()`,
/// `downsampling(size:)`, `retry(maxCount:interval:)`, `onSuccess(_:)`...) from this protocol's extensions.
/// ``KF/Builder`` is one.
///
/// ```swift
/// final class ThumbnailRequest: KFOptionSetter {
///     private let stored = Locked(KingfisherParsedOptionsInfo(nil))
///     var options: KingfisherParsedOptionsInfo {
///         get { stored.withLock { $0 } }
///         set { stored.withLock { $0 = newValue } }
///     }
///     let onFailureDelegate = Delegate<KingfisherError, Void>()
///     let onSuccessDelegate = Delegate<RetrieveImageResult, Void>()
///     let onProgressDelegate = Delegate<(Int64, Int64), Void>()
/// }
/// let request = ThumbnailRequest().downsampling(size: CGSize(width: 64, height: 64)).cacheOriginalImage()
/// ```
///
/// - Note: Kingfisher's protocol is `@MainActor`; this one is not (code on Linux may never run the main actor), and
///   its blocks are `@Sendable`.
public protocol KFOptionSetter {
    /// The options the setters change.
    var options: KingfisherParsedOptionsInfo { get nonmutating set }

    /// Where ``onFailure(_:)`` keeps its block.
    var onFailureDelegate: Delegate<KingfisherError, Void> { get }
    /// Where ``onSuccess(_:)`` keeps its block.
    var onSuccessDelegate: Delegate<RetrieveImageResult, Void> { get }
    /// Where ``onProgress(_:)`` keeps its block.
    var onProgressDelegate: Delegate<(Int64, Int64), Void> { get }
}

/// A setter type that records changes to apply later instead of changing ``KFOptionSetter/options`` at once
/// (``KF/Builder`` applies them over its manager's default options when it retrieves).
protocol OptionChangeRecording {
    func record(_ change: @escaping @Sendable (inout KingfisherParsedOptionsInfo) -> Void)
}

/// What the setters attach the result delegates to: it lives for the process, so the blocks stay set.
final class KFDelegateObserver: Sendable {
    static let shared = KFDelegateObserver()
}

extension KFOptionSetter {
    /// Applies `change` to the options and returns `self`, for the chained setters.
    func changing(_ change: @escaping @Sendable (inout KingfisherParsedOptionsInfo) -> Void) -> Self {
        if let recorder = self as? any OptionChangeRecording {
            recorder.record(change)
        } else {
            var changed = options
            change(&changed)
            options = changed
        }
        return self
    }
}

// MARK: - Life cycle

extension KFOptionSetter {
    /// Calls `block` with (received, expected) bytes as the download goes, on the callback queue (`.untouch` by
    /// default: the thread that read the bytes; never the main queue unless the callback queue says so). `nil`
    /// removes it.
    @discardableResult
    public func onProgress(_ block: DownloadProgressBlock?) -> Self {
        let stored = block.map { block in
            { @Sendable (_: KFDelegateObserver, value: (Int64, Int64)) in block(value.0, value.1) }
        }
        onProgressDelegate.delegate(on: KFDelegateObserver.shared, block: stored)
        return self
    }

    /// Calls `block` with the result when the retrieval succeeds. `nil` removes it.
    @discardableResult
    public func onSuccess(_ block: (@Sendable (RetrieveImageResult) -> Void)?) -> Self {
        let stored = block.map { block in
            { @Sendable (_: KFDelegateObserver, value: RetrieveImageResult) in block(value) }
        }
        onSuccessDelegate.delegate(on: KFDelegateObserver.shared, block: stored)
        return self
    }

    /// Calls `block` with the error when the retrieval fails. `nil` removes it.
    @discardableResult
    public func onFailure(_ block: (@Sendable (KingfisherError) -> Void)?) -> Self {
        let stored = block.map { block in { @Sendable (_: KFDelegateObserver, value: KingfisherError) in block(value) }
        }
        onFailureDelegate.delegate(on: KFDelegateObserver.shared, block: stored)
        return self
    }
}

// MARK: - Redirect handler

extension KF {
    /// What the block given to ``KFOptionSetter/redirectHandler(_:)-(@Sendable (KF.RedirectPayload) -> Void)``
    /// receives for one redirect: call ``completionHandler`` once with the request to follow, or `nil` to stop.
    public struct RedirectPayload: Sendable {
        /// The HTTP task being redirected.
        public let task: SessionDataTask
        /// The redirect response.
        public let response: HTTPURLResponse
        /// The request the downloader would send next.
        public let newRequest: URLRequest
        /// Takes the request to follow (`newRequest`, a changed one) or `nil` to stop; later calls are ignored.
        public let completionHandler: @Sendable (URLRequest?) -> Void
    }
}

extension KFOptionSetter {
    /// Decides each redirect with `handler`.
    @discardableResult
    public func redirectHandler(_ handler: any ImageDownloadRedirectHandler) -> Self {
        changing { $0.redirectHandler = handler }
    }

    /// Decides each redirect with `block`, which gets a ``KF/RedirectPayload`` and calls its completion handler.
    @discardableResult
    public func redirectHandler(_ block: @escaping @Sendable (KF.RedirectPayload) -> Void) -> Self {
        redirectHandler(
            AnyRedirectHandler { task, response, newRequest, completion in
                block(
                    KF.RedirectPayload(
                        task: task, response: response, newRequest: newRequest, completionHandler: completion))
            })
    }
}
