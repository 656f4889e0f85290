public import Foundation
import KingfisherLocking

/// The image-target side of ``KF/Builder``: ``set(to:)`` and the setters only a target uses, as Kingfisher's
/// `KFOptionSetter` and `KF.Builder` have them.
extension KF.Builder {
    /// Loads the image into `target` with the collected options and placeholder, calling ``KFOptionSetter/onProgress(_:)``,
    /// ``KFOptionSetter/onSuccess(_:)`` and ``KFOptionSetter/onFailure(_:)`` on the way. The rules are those of
    /// ``KingfisherWrapper/setImage(with:placeholder:options:progressBlock:completionHandler:)-(Source?,_,_,_,_)``;
    /// it goes through the builder's ``manager(_:)`` (``KingfisherManager/shared`` by default).
    /// - Returns: the task to cancel the load with; `nil` with no source or a memory-cache hit.
    @discardableResult
    public func set<Target: KingfisherImageTarget>(to target: Target) -> DownloadTask? {
        let current = state.withLock { $0 }
        let onSuccess = onSuccessDelegate
        let onFailure = onFailureDelegate
        return target.kf.setImage(
            with: source, placeholder: current.placeholder, parsedOptions: options,
            manager: current.manager ?? .shared, progressBlock: progressBlock,
            completionHandler: { result in
                switch result {
                case .success(let value): _ = onSuccess.call(value)
                case .failure(let error): _ = onFailure.call(error)
                }
            })
    }

    /// Shows `placeholder` while loading. `nil` (none) by default.
    @discardableResult
    public func placeholder(_ placeholder: (any Placeholder)?) -> Self {
        state.withLock { $0.placeholder = placeholder }
        return self
    }

    /// Shows `image` while loading.
    @discardableResult
    public func placeholder(_ image: KFCrossPlatformImage?) -> Self {
        placeholder(image as (any Placeholder)?)
    }

    /// Cross-fades to the loaded image over `duration` seconds: `.transition(.fade(duration))`.
    @discardableResult
    public func fade(duration: TimeInterval) -> Self { transition(.fade(duration)) }

    @discardableResult
    public func transition(_ transition: ImageTransition) -> Self { with { $0.transition = transition } }

    @discardableResult
    public func keepCurrentImageWhileLoading(_ enabled: Bool = true) -> Self {
        with { $0.keepCurrentImageWhileLoading = enabled }
    }
}
