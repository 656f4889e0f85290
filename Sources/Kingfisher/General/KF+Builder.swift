public import Foundation
import Synchronization

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
            var progress: DownloadProgressBlock?
            var onSuccess: (@Sendable (RetrieveImageResult) -> Void)?
            var onFailure: (@Sendable (KingfisherError) -> Void)?
        }

        /// What the builder loads; `nil` when it was made from `nil`.
        public let source: Source?
        let state = Mutex(State())

        init(source: Source?) {
            self.source = source
        }

        /// The options the image would be retrieved with now: the manager's default options, then every setter.
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

        /// Retrieves through `manager` instead of ``KingfisherManager/shared``, over its default options. Ours.
        @discardableResult
        public func manager(_ manager: KingfisherManager) -> Self {
            state.withLock { $0.manager = manager }
            return self
        }

        /// Retrieves the image with the collected options, calling the ``onProgress(_:)``, ``onSuccess(_:)`` and
        /// ``onFailure(_:)`` blocks on the way (on the callback queue).
        /// - Throws: a ``KingfisherError``; ``KingfisherError/ImageSettingErrorReason/emptySource`` when the
        ///   builder has no source.
        public func retrieve() async throws -> RetrieveImageResult {
            let current = state.withLock { $0 }
            let options = Self.options(of: current)
            let queue = options.callbackQueue
            do {
                guard let source else { throw KingfisherError.imageSettingError(reason: .emptySource) }
                let result = try await (current.manager ?? .shared).retrieveImage(
                    with: source, parsedOptions: options, progressBlock: current.progress)
                if let onSuccess = current.onSuccess { queue.execute { onSuccess(result) } }
                return result
            } catch let error as KingfisherError {
                if let onFailure = current.onFailure { queue.execute { onFailure(error) } }
                throw error
            }
        }

        /// Called as download bytes arrive.
        @discardableResult
        public func onProgress(_ block: DownloadProgressBlock?) -> Self {
            state.withLock { $0.progress = block }
            return self
        }

        /// Called with the result when the retrieval succeeds.
        @discardableResult
        public func onSuccess(_ block: (@Sendable (RetrieveImageResult) -> Void)?) -> Self {
            state.withLock { $0.onSuccess = block }
            return self
        }

        /// Called with the error when the retrieval fails.
        @discardableResult
        public func onFailure(_ block: (@Sendable (KingfisherError) -> Void)?) -> Self {
            state.withLock { $0.onFailure = block }
            return self
        }
    }
}
