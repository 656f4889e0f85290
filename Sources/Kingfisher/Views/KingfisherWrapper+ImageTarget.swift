/// `target.kf.setImage(with:)`: loading an image into a ``KingfisherImageTarget`` with Kingfisher's rules.
extension KingfisherWrapper where Base: KingfisherImageTarget {
    /// Loads the image of `source` into the target through ``KingfisherManager/shared``.
    ///
    /// Kingfisher's rules: with a `nil` source the placeholder is shown and the completion handler gets
    /// ``KingfisherError/ImageSettingErrorReason/emptySource``. Otherwise the placeholder (or, with none, an empty
    /// image) replaces what is shown — unless `keepCurrentImageWhileLoading` and an image is shown — and the
    /// indicator starts. On success the placeholder is removed and the image set, through the `.transition`
    /// when it came from the network or a provider (or always, with `forceTransition`). On failure the
    /// placeholder stays unless `onFailureImage` is set, which replaces it. The indicator stops however the
    /// load ends.
    ///
    /// A new request on the same target replaces this one: this one's download is cancelled, its result is
    /// never set, and its completion handler gets
    /// ``KingfisherError/ImageSettingErrorReason/notCurrentSourceTask(result:error:source:)``.
    ///
    /// - Parameters:
    ///   - source: what to load; `nil` shows the placeholder and fails with `emptySource`.
    ///   - placeholder: shown while loading. `nil` by default.
    ///   - options: options for the retrieval and the target (`transition`, `forceTransition`,
    ///     `keepCurrentImageWhileLoading`, `onFailureImage`, `progressiveJPEG`: previews shown before the image).
    ///     `nil` by default.
    ///   - progressBlock: download progress, on the callback queue (on the target's thread for a target bound to
    ///     one, see ``KingfisherTargetState/init(performingCallsWith:)``). `nil` by default.
    ///   - completionHandler: called exactly once, after the target was updated (see ``KingfisherImageTarget``
    ///     for where). `nil` by default.
    /// - Returns: the task to cancel the load with; `nil` when the source is `nil` or the image was in the
    ///   memory cache (then it is set already, unless another call for the target was under way).
    /// - Note: Unlike Kingfisher, a superseded request does not stop the indicator of the request that replaced
    ///   it, and a load does not keep its target alive.
    @discardableResult
    public func setImage(
        with source: Source?,
        placeholder: (any Placeholder)? = nil,
        options: KingfisherOptionsInfo? = nil,
        progressBlock: DownloadProgressBlock? = nil,
        completionHandler: (@Sendable (Result<RetrieveImageResult, KingfisherError>) -> Void)? = nil
    ) -> DownloadTask? {
        let manager = KingfisherManager.shared
        return setImage(
            with: source, placeholder: placeholder, parsedOptions: manager.parsedOptions(options), manager: manager,
            progressBlock: progressBlock, completionHandler: completionHandler)
    }

    /// Loads the image of `resource` into the target (a file URL is read from disk). See
    /// ``setImage(with:placeholder:options:progressBlock:completionHandler:)-(Source?,_,_,_,_)``.
    @discardableResult
    public func setImage(
        with resource: (any Resource)?,
        placeholder: (any Placeholder)? = nil,
        options: KingfisherOptionsInfo? = nil,
        progressBlock: DownloadProgressBlock? = nil,
        completionHandler: (@Sendable (Result<RetrieveImageResult, KingfisherError>) -> Void)? = nil
    ) -> DownloadTask? {
        setImage(
            with: resource?.convertToSource(), placeholder: placeholder, options: options,
            progressBlock: progressBlock, completionHandler: completionHandler)
    }

    /// Loads the image of `provider`'s data into the target. See
    /// ``setImage(with:placeholder:options:progressBlock:completionHandler:)-(Source?,_,_,_,_)``.
    @discardableResult
    public func setImage(
        with provider: (any ImageDataProvider)?,
        placeholder: (any Placeholder)? = nil,
        options: KingfisherOptionsInfo? = nil,
        progressBlock: DownloadProgressBlock? = nil,
        completionHandler: (@Sendable (Result<RetrieveImageResult, KingfisherError>) -> Void)? = nil
    ) -> DownloadTask? {
        setImage(
            with: provider.map { .provider($0) }, placeholder: placeholder, options: options,
            progressBlock: progressBlock, completionHandler: completionHandler)
    }

    // Without a progress block, as Kingfisher has them: a trailing closure after `setImage(with: url)` is the
    // completion handler, not the progress block.

    /// Loads the image of `source` into the target; `completionHandler` is called once at the end. See
    /// ``setImage(with:placeholder:options:progressBlock:completionHandler:)-(Source?,_,_,_,_)``.
    @discardableResult
    public func setImage(
        with source: Source?,
        placeholder: (any Placeholder)? = nil,
        options: KingfisherOptionsInfo? = nil,
        completionHandler: (@Sendable (Result<RetrieveImageResult, KingfisherError>) -> Void)? = nil
    ) -> DownloadTask? {
        setImage(
            with: source, placeholder: placeholder, options: options, progressBlock: nil,
            completionHandler: completionHandler)
    }

    /// Loads the image of `resource` into the target; `completionHandler` is called once at the end. See
    /// ``setImage(with:placeholder:options:progressBlock:completionHandler:)-(Source?,_,_,_,_)``.
    @discardableResult
    public func setImage(
        with resource: (any Resource)?,
        placeholder: (any Placeholder)? = nil,
        options: KingfisherOptionsInfo? = nil,
        completionHandler: (@Sendable (Result<RetrieveImageResult, KingfisherError>) -> Void)? = nil
    ) -> DownloadTask? {
        setImage(
            with: resource?.convertToSource(), placeholder: placeholder, options: options, progressBlock: nil,
            completionHandler: completionHandler)
    }

    /// Loads the image of `provider`'s data into the target; `completionHandler` is called once at the end. See
    /// ``setImage(with:placeholder:options:progressBlock:completionHandler:)-(Source?,_,_,_,_)``.
    @discardableResult
    public func setImage(
        with provider: (any ImageDataProvider)?,
        placeholder: (any Placeholder)? = nil,
        options: KingfisherOptionsInfo? = nil,
        completionHandler: (@Sendable (Result<RetrieveImageResult, KingfisherError>) -> Void)? = nil
    ) -> DownloadTask? {
        setImage(
            with: provider.map { .provider($0) }, placeholder: placeholder, options: options, progressBlock: nil,
            completionHandler: completionHandler)
    }

    /// The load with parsed options, through `manager` (the builder's ``KF/Builder/set(to:)`` passes its own).
    @discardableResult
    func setImage(
        with source: Source?,
        placeholder: (any Placeholder)?,
        parsedOptions options: KingfisherParsedOptionsInfo,
        manager: KingfisherManager,
        progressBlock: DownloadProgressBlock?,
        completionHandler: (@Sendable (Result<RetrieveImageResult, KingfisherError>) -> Void)?
    ) -> DownloadTask? {
        let target = base
        let state = target.kingfisherState
        guard let source else {
            let (wasLoading, replaced) = state.dropRequest()
            state.actions.submit {
                TargetRequest.setPlaceholder(placeholder, on: target)
                if wasLoading { state.indicator?.stopAnimatingView() }
                completionHandler?(.failure(.imageSettingError(reason: .emptySource)))
            }
            replaced?.cancel()
            return nil
        }

        let (identifier, replaced) = state.issueRequest()
        let previewSink = options.progressiveJPEG.map {
            TargetRequest<Base>.previewSink($0, identifier: identifier, target: target)
        }
        let request = TargetRequest<Base>(
            identifier: identifier, source: source, options: options, completionHandler: completionHandler)
        state.actions.submit { request.start(on: target, placeholder: placeholder) }

        let task = manager.retrieveImage(
            with: source, parsedOptions: options,
            progressBlock: progressReporter(for: identifier, calling: progressBlock),
            downloadTaskUpdated: { [weak state] task in state?.setTask(task, for: identifier) },
            previewSink: previewSink,
            completionHandler: { [weak target, actions = state.actions] result in
                guard let target else {
                    // The target is gone: nothing to set, but the caller still hears once (where it would have).
                    actions.submit {
                        completionHandler?(.failure(TargetRequest<Base>.notCurrent(result, source: source)))
                    }
                    return
                }
                target.kingfisherState.actions.submit { request.finish(with: result, on: target) }
            })
        // Cancelled only now, so a download of the same URL goes on for the new request.
        replaced?.cancel()
        if let task, !state.setTask(task, for: identifier) {
            // Replaced (or finished) before its task was recorded: cancelling a finished task does nothing.
            task.cancel()
        }
        return task
    }

    /// The progress block passed on, which also moves the indicator while `identifier` is the current request.
    private func progressReporter(
        for identifier: UInt, calling progressBlock: DownloadProgressBlock?
    ) -> DownloadProgressBlock? {
        let state = base.kingfisherState
        guard progressBlock != nil || state.indicator != nil else { return nil }
        let bound = state.actions.isBound
        return { [weak state, actions = state.actions] received, total in
            // A target bound to a thread hears progress there, in order with its other calls.
            if bound {
                actions.submit { progressBlock?(received, total) }
            } else {
                progressBlock?(received, total)
            }
            guard let state else { return }
            state.actions.submit {
                guard state.isCurrent(identifier) else { return }
                state.indicator?.updateProgress(receivedSize: received, totalSize: total)
            }
        }
    }

    /// Cancels the target's running load. Its completion handler gets a cancellation error (see
    /// ``KingfisherError/isTaskCancelled``); the indicator stops and `onFailureImage`, when set, is shown.
    public func cancelDownloadTask() {
        base.kingfisherState.currentTask?.cancel()
    }

    /// The identifier of the request the target waits for; `nil` when it waits for none.
    public var taskIdentifier: Source.Identifier.Value? {
        base.kingfisherState.currentTaskIdentifier
    }

    /// The placeholder the target shows now, if any.
    public var placeholder: (any Placeholder)? {
        base.kingfisherState.placeholder
    }
}
