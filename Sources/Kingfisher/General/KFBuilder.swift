public import Foundation
import KingfisherLocking

/// Kingfisher's namespace for builders and small value types: `KF.ImageResource`, and (with the manager)
/// `KF.url(_:)`, `KF.source(_:)` and the `KF.Builder` they return.
public enum KF {}

extension KF {
    /// A builder for `url`: set options with chained calls, then ``Builder/retrieve()``.
    /// - Parameter cacheKey: the key to cache under; the URL's ``Resource/cacheKey`` when `nil` (the default).
    ///   A `nil` URL makes the retrieval fail with ``KingfisherError/ImageSettingErrorReason/emptySource``.
    public static func url(_ url: URL?, cacheKey: String? = nil) -> Builder {
        Builder(source: url.map { KF.ImageResource(downloadURL: $0, cacheKey: cacheKey).convertToSource() })
    }

    /// A builder for `resource` (a file URL is read from disk instead of downloaded).
    public static func resource(_ resource: (any Resource)?) -> Builder {
        Builder(source: resource?.convertToSource())
    }

    /// A builder for `source`.
    public static func source(_ source: Source?) -> Builder {
        Builder(source: source)
    }

    /// A builder for the data of `provider`.
    public static func dataProvider(_ provider: (any ImageDataProvider)?) -> Builder {
        Builder(source: provider.map { .provider($0) })
    }

    /// A builder for image bytes in memory, cached under `cacheKey`.
    public static func data(source data: Data?, cacheKey: String) -> Builder {
        Builder(source: data.map { .provider(RawImageDataProvider(data: $0, cacheKey: cacheKey)) })
    }

    /// Collects the options of one retrieval in chained calls:
    ///
    /// ```swift
    /// let result = try await KF.url(url)
    ///     .downsampling(size: CGSize(width: 256, height: 256))
    ///     .cacheOriginalImage()
    ///     .retrieve()
    /// ```
    ///
    /// It starts from the manager's ``KingfisherManager/defaultOptions`` and retrieves through that manager:
    /// ``KingfisherManager/shared`` unless ``manager(_:)`` names another. Setters change the builder and return
    /// it, as in Kingfisher; they apply over the default options when the image is retrieved.
    ///
    /// Or loads it into an image target with ``set(to:)``:
    ///
    /// ```swift
    /// KF.url(url).placeholder(grey).fade(duration: 0.25).onFailureImage(broken).set(to: target)
    /// ```
    ///
    /// - Note: Ours: ``retrieve()`` for code without an image target, and ``manager(_:)``.
    public final class Builder: Sendable {
        typealias Change = @Sendable (inout KingfisherParsedOptionsInfo) -> Void

        struct State {
            var manager: KingfisherManager?
            var placeholder: (any Placeholder)?
            var changes: [Change] = []
        }

        /// What the builder loads; `nil` when it was made from `nil`.
        public let source: Source?
        let state = Locked(State())

        /// Called with the error when the retrieval fails; set through ``KFOptionSetter/onFailure(_:)``.
        public let onFailureDelegate = Delegate<KingfisherError, Void>()
        /// Called with the result when the retrieval succeeds; set through ``KFOptionSetter/onSuccess(_:)``.
        public let onSuccessDelegate = Delegate<RetrieveImageResult, Void>()
        /// Called with (received, expected) bytes as the download goes; set through ``KFOptionSetter/onProgress(_:)``.
        public let onProgressDelegate = Delegate<(Int64, Int64), Void>()

        init(source: Source?) {
            self.source = source
        }

        /// The options the image would be retrieved with now: the manager's default options, then every setter.
        /// Setting it replaces them all (later setters still apply over it).
        public var options: KingfisherParsedOptionsInfo {
            get { Self.options(of: state.withLock { $0 }) }
            set { state.withLock { $0.changes = [{ $0 = newValue }] } }
        }

        private static func options(of state: State) -> KingfisherParsedOptionsInfo {
            var options = (state.manager ?? .shared).parsedOptions(nil)
            for change in state.changes { change(&options) }
            return options
        }

        /// Records a change to the options and returns the builder, for the chained setters.
        func with(_ change: @escaping Change) -> Self {
            state.withLock { $0.changes.append(change) }
            return self
        }

        /// The progress block the delegates make, `nil` when no progress delegate is set.
        var progressBlock: DownloadProgressBlock? {
            guard onProgressDelegate.isSet else { return nil }
            let delegate = onProgressDelegate
            return { received, total in _ = delegate.call((received, total)) }
        }

        /// Retrieves through `manager` instead of ``KingfisherManager/shared``, over its default options. Ours.
        @discardableResult
        public func manager(_ manager: KingfisherManager) -> Self {
            state.withLock { $0.manager = manager }
            return self
        }

        /// Retrieves the image with the collected options, calling the ``KFOptionSetter/onProgress(_:)``,
        /// ``KFOptionSetter/onSuccess(_:)`` and ``KFOptionSetter/onFailure(_:)`` blocks on the way (on the callback
        /// queue).
        /// - Throws: a ``KingfisherError``; ``KingfisherError/ImageSettingErrorReason/emptySource`` when the
        ///   builder has no source.
        public func retrieve() async throws -> RetrieveImageResult {
            let current = state.withLock { $0 }
            let options = Self.options(of: current)
            let queue = options.callbackQueue
            let onSuccess = onSuccessDelegate
            let onFailure = onFailureDelegate
            do {
                guard let source else { throw KingfisherError.imageSettingError(reason: .emptySource) }
                let result = try await (current.manager ?? .shared).retrieveImage(
                    with: source, parsedOptions: options, progressBlock: progressBlock)
                queue.execute { _ = onSuccess.call(result) }
                return result
            } catch let error as KingfisherError {
                queue.execute { _ = onFailure.call(error) }
                throw error
            }
        }
    }
}

extension KF.Builder: KFOptionSetter, OptionChangeRecording {
    func record(_ change: @escaping @Sendable (inout KingfisherParsedOptionsInfo) -> Void) {
        _ = with(change)
    }
}

extension KF.Builder {
    /// Starts retrieving with the collected options and returns at once: the previews (with
    /// ``KFOptionSetter/progressiveJPEG(_:)``) as an `AsyncStream`, then the result; the
    /// ``KFOptionSetter/onProgress(_:)``, ``KFOptionSetter/onSuccess(_:)`` and ``KFOptionSetter/onFailure(_:)``
    /// blocks are called on the way. Ours; see ``ImageRetrievalTask``.
    public func retrievalTask() -> ImageRetrievalTask {
        let manager = state.withLock { $0.manager } ?? .shared
        let onSuccess = onSuccessDelegate
        let onFailure = onFailureDelegate
        return ImageRetrievalTask(
            manager: manager, source: source, options: options, progressBlock: progressBlock,
            onSuccess: { _ = onSuccess.call($0) }, onFailure: { _ = onFailure.call($0) })
    }
}
