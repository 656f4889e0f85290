/// One `setImage` request on one target: Kingfisher's rules for what the target shows when the request starts and
/// when its result arrives. Every method runs inside the target's ``TargetActionQueue``.
struct TargetRequest<Target: KingfisherImageTarget>: Sendable {
    typealias Completion = @Sendable (Result<RetrieveImageResult, KingfisherError>) -> Void

    let identifier: UInt
    let source: Source
    let options: KingfisherParsedOptionsInfo
    let completionHandler: Completion?

    /// The start: the placeholder replaces what is shown, unless `keepCurrentImageWhileLoading` and something
    /// (an image or a placeholder) is shown; then the indicator starts.
    func start(on target: Target, placeholder: (any Placeholder)?) {
        let state = target.kingfisherState
        let showsNothing = target.image == nil && state.placeholder == nil
        if !options.keepCurrentImageWhileLoading || showsNothing {
            Self.setPlaceholder(placeholder, on: target)
        }
        state.indicator?.startAnimatingView()
    }

    /// The end. A result for a request that is no longer current changes nothing and is reported as
    /// `notCurrentSourceTask`; otherwise the indicator stops, then on success the placeholder goes and the image
    /// is set (through the transition when one is due), and on failure `onFailureImage`, when set, replaces the
    /// placeholder. The completion handler is called last (after the transition, for one).
    func finish(with result: Result<RetrieveImageResult, KingfisherError>, on target: Target) {
        let state = target.kingfisherState
        guard state.finishRequest(identifier) else {
            completionHandler?(.failure(Self.notCurrent(result, source: source)))
            return
        }
        state.indicator?.stopAnimatingView()
        switch result {
        case .success(let value):
            guard needsTransition(cacheType: value.cacheType) else {
                // The image first, so an image placeholder is replaced without a blank in between.
                target.image = value.image
                Self.removePlaceholder(from: target)
                completionHandler?(result)
                return
            }
            // As Kingfisher: the placeholder goes first, then the target runs the transition (from what was shown).
            let shown = target.image
            Self.removePlaceholder(from: target)
            let transition = options.transition
            let completionHandler = completionHandler
            target.transition(transition, from: shown, to: value.image) { finished in
                if case .custom(_, _, let completion?) = transition { completion(finished) }
                completionHandler?(result)
            }
        case .failure:
            if case .some(let failureImage) = options.onFailureImage {
                target.image = failureImage
                Self.removePlaceholder(from: target)
            }
            completionHandler?(result)
        }
    }

    /// A transition runs when one is set and the image was not found in a cache, or `forceTransition` is set.
    func needsTransition(cacheType: CacheType) -> Bool {
        guard !options.transition.isNone else { return false }
        return options.forceTransition || cacheType == .none
    }

    /// Removes the placeholder shown, then shows `placeholder`; with none, clears the image (as Kingfisher does).
    static func setPlaceholder(_ placeholder: (any Placeholder)?, on target: Target) {
        let previous = target.kingfisherState.replacePlaceholder(with: placeholder)
        previous?.remove(from: target)
        if let placeholder {
            placeholder.add(to: target)
        } else {
            target.image = nil
        }
    }

    static func removePlaceholder(from target: Target) {
        let previous = target.kingfisherState.replacePlaceholder(with: nil)
        previous?.remove(from: target)
    }

    static func notCurrent(
        _ result: Result<RetrieveImageResult, KingfisherError>, source: Source
    ) -> KingfisherError {
        switch result {
        case .success(let value):
            .imageSettingError(reason: .notCurrentSourceTask(result: value, error: nil, source: source))
        case .failure(let error):
            .imageSettingError(reason: .notCurrentSourceTask(result: nil, error: error, source: source))
        }
    }
}
